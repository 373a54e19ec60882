@testable import CoherenceMacros
import SwiftSyntax
import SwiftSyntaxBuilder
import Testing

/// What `@Managed` expands to, for the shapes Xcode generates in
/// `+CoreDataProperties.swift`.
@Suite("@Managed expansion")
struct ManagedMacroTests {
    /// An attribute in an extension: accessors through the object and the
    /// declaration (name and Swift type) as static data.
    @Test func anAttributeInAnExtension() {
        expectExpansion(
            """
            extension Car {
                @Managed public var maker: String?
            }
            """,
            expandsTo:
            """
            extension Car {
                public var maker: String? {
                    get {
                        _read(__Coherence_maker.declaration)
                    }
                    set {
                        _write(__Coherence_maker.declaration, newValue)
                    }
                }

                enum __Coherence_maker {
                    static let declaration = Coherence.ManagedDeclaration<String?>(name: "maker")
                }
            }
            """)
    }

    /// A to-many `NSSet?` also gets Core Data's generated accessors, for
    /// one object and for a set, with the property's access level.
    @Test func aToManyNSSetGetsItsAccessors() {
        expectExpansion(
            """
            extension Car {
                @Managed public var owners: NSSet?
            }
            """,
            expandsTo:
            """
            extension Car {
                public var owners: NSSet? {
                    get {
                        _read(__Coherence_owners.declaration)
                    }
                    set {
                        _write(__Coherence_owners.declaration, newValue)
                    }
                }

                enum __Coherence_owners {
                    static let declaration = Coherence.ManagedDeclaration<NSSet?>(name: "owners")
                }

                public func addToOwners(_ value: Coherence.ManagedObject) {
                    _addToRelationship("owners", value)
                }

                public func removeFromOwners(_ value: Coherence.ManagedObject) {
                    _removeFromRelationship("owners", value)
                }

                public func addToOwners(_ values: NSSet) {
                    _addToRelationship("owners", values)
                }

                public func removeFromOwners(_ values: NSSet) {
                    _removeFromRelationship("owners", values)
                }
            }
            """)
    }

    /// A typed to-many set's accessors take its element type.
    @Test func aTypedSetGetsTypedAccessors() {
        expectExpansion(
            """
            extension Car {
                @Managed var wheels: Set<Wheel>
            }
            """,
            expandsTo:
            """
            extension Car {
                var wheels: Set<Wheel> {
                    get {
                        _read(__Coherence_wheels.declaration)
                    }
                    set {
                        _write(__Coherence_wheels.declaration, newValue)
                    }
                }

                enum __Coherence_wheels {
                    static let declaration = Coherence.ManagedDeclaration<Set<Wheel>>(name: "wheels")
                }

                func addToWheels(_ value: Wheel) {
                    _addToRelationship("wheels", value)
                }

                func removeFromWheels(_ value: Wheel) {
                    _removeFromRelationship("wheels", value)
                }

                func addToWheels(_ values: Set<Wheel>) {
                    _addToRelationship("wheels", values)
                }

                func removeFromWheels(_ values: Set<Wheel>) {
                    _removeFromRelationship("wheels", values)
                }
            }
            """)
    }
    /// An ordered to-many relationship (`NSOrderedSet?`) gets the accessors
    /// Xcode generates for one: by index, by `NSIndexSet`, and by object.
    @Test func anOrderedSetGetsXcodesOrderedAccessors() {
        expectExpansion(
            """
            extension Playlist {
                @Managed public var tracks: NSOrderedSet?
            }
            """,
            expandsTo:
            """
            extension Playlist {
                public var tracks: NSOrderedSet? {
                    get {
                        _read(__Coherence_tracks.declaration)
                    }
                    set {
                        _write(__Coherence_tracks.declaration, newValue)
                    }
                }

                enum __Coherence_tracks {
                    static let declaration = Coherence.ManagedDeclaration<NSOrderedSet?>(name: "tracks")
                }

                public func insertIntoTracks(_ value: Coherence.ManagedObject, at idx: Int) {
                    _insertIntoRelationship("tracks", value, at: [idx])
                }

                public func removeFromTracks(at idx: Int) {
                    _removeFromRelationship("tracks", at: [idx])
                }

                public func insertIntoTracks(_ values: [Coherence.ManagedObject], at indexes: NSIndexSet) {
                    _insertIntoRelationship("tracks", values, at: Array(indexes as IndexSet))
                }

                public func removeFromTracks(at indexes: NSIndexSet) {
                    _removeFromRelationship("tracks", at: Array(indexes as IndexSet))
                }

                public func replaceTracks(at idx: Int, with value: Coherence.ManagedObject) {
                    _replaceInRelationship("tracks", at: [idx], with: value)
                }

                public func replaceTracks(at indexes: NSIndexSet, with values: [Coherence.ManagedObject]) {
                    _replaceInRelationship("tracks", at: Array(indexes as IndexSet), with: values)
                }

                public func addToTracks(_ value: Coherence.ManagedObject) {
                    _addToRelationship("tracks", value)
                }

                public func removeFromTracks(_ value: Coherence.ManagedObject) {
                    _removeFromRelationship("tracks", value)
                }

                public func addToTracks(_ values: NSOrderedSet) {
                    _addToRelationship("tracks", values)
                }

                public func removeFromTracks(_ values: NSOrderedSet) {
                    _removeFromRelationship("tracks", values)
                }
            }
            """)
    }
}
