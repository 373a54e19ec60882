@testable import CoherenceMacros
import SwiftSyntax
import SwiftSyntaxBuilder
import Testing

/// What `@Attribute` expands to, for the declaration shapes README, the
/// DocC articles, the tests and zeader use: accessors through the object, a
/// zero-size marker field, and the declaration as static data.
@Suite("@Attribute expansion")
struct AttributeMacroTests {
    /// `@Attribute var name = ""`: the type comes from the initial value
    /// (kept legal by an `init` accessor), which becomes the default value;
    /// a literal is passed as a constant, encoded once.
    @Test func anUntypedAttributeKeepsItsInitialValueAsTheDefault() {
        expectExpansion(
            """
            final class Server: ManagedObject {
                @Attribute var name = ""
            }
            """,
            expandsTo:
            """
            final class Server: ManagedObject {
                var name {
                    @storageRestrictions(initializes: _name)
                    init(initialValue) {
                        _name = Coherence.PropertyField()
                    }
                    get {
                        _read(__Coherence_name.declaration)
                    }
                    set {
                        _write(__Coherence_name.declaration, newValue)
                    }
                }

                private var _name = Coherence.PropertyField<__Coherence_name>()

                enum __Coherence_name: Coherence.AttributeDeclaring {
                    static let declaration = Coherence.AttributeDeclaration(name: "name", constant: "")
                    static func keyPath(rootedAt type: AnyClass) -> AnyKeyPath? {
                        func make<__CoherenceRoot: Server & Coherence._EntityClass>(_: __CoherenceRoot.Type) -> AnyKeyPath {
                            \\__CoherenceRoot.name
                        }
                        guard let opened = type as? any (Server & Coherence._EntityClass).Type else {
                            return nil
                        }
                        return make(opened)
                    }
                }
            }
            """)
    }

    /// A written type goes into the declaration's type; options pass through.
    @Test func aTypedAttributeWithOptions() {
        expectExpansion(
            """
            class Vehicle: ManagedObject {
                @Attribute(.transient) var wheels: Int = 4
            }
            """,
            expandsTo:
            """
            class Vehicle: ManagedObject {
                var wheels: Int {
                    @storageRestrictions(initializes: _wheels)
                    init(initialValue) {
                        _wheels = Coherence.PropertyField()
                    }
                    get {
                        _read(__Coherence_wheels.declaration)
                    }
                    set {
                        _write(__Coherence_wheels.declaration, newValue)
                    }
                }

                private var _wheels = Coherence.PropertyField<__Coherence_wheels>()

                enum __Coherence_wheels: Coherence.AttributeDeclaring {
                    static let declaration = Coherence.AttributeDeclaration<Int>(.transient, name: "wheels", constant: 4)
                    static func keyPath(rootedAt type: AnyClass) -> AnyKeyPath? {
                        func make<__CoherenceRoot: Vehicle & Coherence._EntityClass>(_: __CoherenceRoot.Type) -> AnyKeyPath {
                            \\__CoherenceRoot.wheels
                        }
                        guard let opened = type as? any (Vehicle & Coherence._EntityClass).Type else {
                            return nil
                        }
                        return make(opened)
                    }
                }
            }
            """)
    }

    /// No initial value: no `init` accessor, and no default (optional types
    /// start `nil`, others are required).
    @Test func anAttributeWithoutAnInitialValue() {
        expectExpansion(
            """
            final class FeedItem: ManagedObject {
                @Attribute var link: URL
            }
            """,
            expandsTo:
            """
            final class FeedItem: ManagedObject {
                var link: URL {
                    get {
                        _read(__Coherence_link.declaration)
                    }
                    set {
                        _write(__Coherence_link.declaration, newValue)
                    }
                }

                private var _link = Coherence.PropertyField<__Coherence_link>()

                enum __Coherence_link: Coherence.AttributeDeclaring {
                    static let declaration = Coherence.AttributeDeclaration<URL>(name: "link")
                    static func keyPath(rootedAt type: AnyClass) -> AnyKeyPath? {
                        func make<__CoherenceRoot: FeedItem & Coherence._EntityClass>(_: __CoherenceRoot.Type) -> AnyKeyPath {
                            \\__CoherenceRoot.link
                        }
                        guard let opened = type as? any (FeedItem & Coherence._EntityClass).Type else {
                            return nil
                        }
                        return make(opened)
                    }
                }
            }
            """)
    }

    /// An initial value that is not a literal is computed for each new
    /// object, as a stored property's initial value is; literals (numbers,
    /// strings without interpolation, Booleans, `nil`, arrays and
    /// dictionaries of literals) are constants. `.now` and `.draft` look
    /// alike (a static property, an enumeration case): both are computed.
    @Test(arguments: [
        ("UUID()", false), ("Date.now", false), ("\"a\\(1)\"", false), ("[\"a\", b]", false),
        (".now", false), (".draft", false), ("-1.5", true), ("\"plain\"", true), ("[1, 2]", true), ("[\"a\": 1]", true), ("nil", true), ("true", true),
    ])
    func initialValuesAreConstantOnlyWhenLiteral(initializer: String, isConstant: Bool) {
        let syntax = ExprSyntax(stringLiteral: initializer)
        #expect(InitialValue.isLiteral(syntax) == isConstant, "\(initializer)")
    }
}
