import Testing

/// What `@Relationship` and `@Derived` expand to: their arguments, type-checked
/// as the macros' own, become the declaration's.
@Suite("@Relationship and @Derived expansion")
struct RelationshipAndDerivedMacroTests {
    @Test func aRelationshipWithAnInverseAndADeleteRule() {
        expectExpansion(
            """
            final class Server: ManagedObject {
                @Relationship(inverse: \\FeedItem.server, deleteRule: .cascade)
                var feedItems: Set<FeedItem>
            }
            """,
            expandsTo:
            """
            final class Server: ManagedObject {
                var feedItems: Set<FeedItem> {
                    get {
                        _read(__Coherence_feedItems.declaration)
                    }
                    set {
                        _write(__Coherence_feedItems.declaration, newValue)
                    }
                }

                private var _feedItems = Coherence.PropertyField<__Coherence_feedItems>()

                enum __Coherence_feedItems: Coherence.RelationshipDeclaring {
                    static let declaration = Coherence.RelationshipDeclaration<Set<FeedItem>>(inverse: \\FeedItem.server, deleteRule: .cascade, name: "feedItems")
                    static func keyPath(rootedAt type: AnyClass) -> AnyKeyPath? {
                        func make<__CoherenceRoot: Server & Coherence._EntityClass>(_: __CoherenceRoot.Type) -> AnyKeyPath {
                            \\__CoherenceRoot.feedItems
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

    /// SwiftData's argument order is kept as written.
    @Test func aRelationshipInSwiftDataOrder() {
        expectExpansion(
            """
            final class Shelf: ManagedObject {
                @Relationship(deleteRule: .cascade, inverse: \\Book.shelf) var books: Set<Book>
            }
            """,
            expandsTo:
            """
            final class Shelf: ManagedObject {
                var books: Set<Book> {
                    get {
                        _read(__Coherence_books.declaration)
                    }
                    set {
                        _write(__Coherence_books.declaration, newValue)
                    }
                }

                private var _books = Coherence.PropertyField<__Coherence_books>()

                enum __Coherence_books: Coherence.RelationshipDeclaring {
                    static let declaration = Coherence.RelationshipDeclaration<Set<Book>>(deleteRule: .cascade, inverse: \\Book.shelf, name: "books")
                    static func keyPath(rootedAt type: AnyClass) -> AnyKeyPath? {
                        func make<__CoherenceRoot: Shelf & Coherence._EntityClass>(_: __CoherenceRoot.Type) -> AnyKeyPath {
                            \\__CoherenceRoot.books
                        }
                        guard let opened = type as? any (Shelf & Coherence._EntityClass).Type else {
                            return nil
                        }
                        return make(opened)
                    }
                }
            }
            """)
    }

    /// A derived attribute is read-only; its predicate is carried as written.
    @Test func aDerivedCountWithAPredicate() {
        expectExpansion(
            """
            final class Server: ManagedObject {
                @Derived(count: \\Server.feedItems, where: #Predicate<FeedItem> { $0.read == false })
                var unreadCount: Int
            }
            """,
            expandsTo:
            """
            final class Server: ManagedObject {
                var unreadCount: Int {
                    get {
                        _read(__Coherence_unreadCount.declaration)
                    }
                }

                private var _unreadCount = Coherence.PropertyField<__Coherence_unreadCount>()

                enum __Coherence_unreadCount: Coherence.DerivedDeclaring {
                    static let declaration = Coherence.DerivedDeclaration<Int>(count: \\Server.feedItems, where: #Predicate<FeedItem> {
                            $0.read == false
                        }, name: "unreadCount")
                    static func keyPath(rootedAt type: AnyClass) -> AnyKeyPath? {
                        func make<__CoherenceRoot: Server & Coherence._EntityClass>(_: __CoherenceRoot.Type) -> AnyKeyPath {
                            \\__CoherenceRoot.unreadCount
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
}
