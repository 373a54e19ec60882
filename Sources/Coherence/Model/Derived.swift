import Foundation

/// Declares an attribute whose value is derived from related objects and
/// kept current by the context at every change — the seed article's "unread
/// count" as a declaration:
///
/// ```swift
/// final class Server: ManagedObject {
///     @Relationship(inverse: \FeedItem.server, deleteRule: .cascade)
///     var feedItems: Set<FeedItem>
///     @Derived(count: \Server.feedItems, where: #Predicate<FeedItem> { $0.read == false })
///     var unreadCount: Int
///     @Derived(sum: \Server.feedItems, of: \FeedItem.size) var totalSize: Int
///     @Derived(\Server.owner, \Owner.name) var ownerName: String?
/// }
/// ```
///
/// Aggregates (`count`, `sum`, `min`, `max`, `average`, each with an
/// optional predicate on the child) follow a to-many relationship whose
/// inverse is to-one; a copy follows a to-one relationship. The value is
/// stored in the object's row (fetches can filter and sort on it), is current
/// after every `processPendingChanges()` — so before any save — and after
/// merges, nested saves, rollback, refresh, reset and merged batch requests,
/// and a change of it is reported as an update of the object.
///
/// **Complexity:** a changed child costs O(1) for `count` and `sum`,
/// O(log n) for `min`, `max` and `average` once the parent's n children
/// were read (the first change of a parent in a context reads them); a
/// copied value costs O(objects that copy it). Derived properties are read-only.
/// The number of objects in `relationship` that match `predicate`.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived<Parent: ManagedObject, Child: ManagedObject>(
    count relationship: KeyPath<Parent, Set<Child>>, where predicate: Predicate<Child>? = nil
) = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// The sum of `attribute` over the objects in `relationship` that match `predicate`.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived<Parent: ManagedObject, Child: ManagedObject, Element>(
    sum relationship: KeyPath<Parent, Set<Child>>, of attribute: KeyPath<Child, Element>, where predicate: Predicate<Child>? = nil
) = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// The smallest `attribute` of the objects in `relationship` that match
/// `predicate`; `nil` when none does.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived<Parent: ManagedObject, Child: ManagedObject, Element>(
    min relationship: KeyPath<Parent, Set<Child>>, of attribute: KeyPath<Child, Element>, where predicate: Predicate<Child>? = nil
) = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// The largest `attribute` of the objects in `relationship` that match
/// `predicate`; `nil` when none does.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived<Parent: ManagedObject, Child: ManagedObject, Element>(
    max relationship: KeyPath<Parent, Set<Child>>, of attribute: KeyPath<Child, Element>, where predicate: Predicate<Child>? = nil
) = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// The average of `attribute` over the objects in `relationship` that match
/// `predicate`; `nil` when none does.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived<Parent: ManagedObject, Child: ManagedObject, Element>(
    average relationship: KeyPath<Parent, Set<Child>>, of attribute: KeyPath<Child, Element>, where predicate: Predicate<Child>? = nil
) = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// A copy of `attribute` of the object a to-one `relationship` leads to;
/// `nil` when it leads to none.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived<Parent: ManagedObject, Destination: ManagedObject, Copied>(
    _ relationship: KeyPath<Parent, Destination?>, _ attribute: KeyPath<Destination, Copied>
) = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// A `@Derived` attribute's declaration: what the macro generates for
/// each, as static data. Not for your code.
public final class DerivedDeclaration<Value>: AttributeDeclaration<Value>, @unchecked Sendable {
    // @unchecked: immutable; `DerivationDeclaration` is Sendable.

    /// What the attribute is derived from.
    let derivation: DerivationDeclaration

    /// A derived attribute a model file declares.
    init(fileName name: String, derivation: DerivationDeclaration, initialValue: InitialValue, userInfo: [String: String]) {
        self.derivation = derivation
        super.init(fileName: name, options: [], initialValue: initialValue, userInfo: userInfo)
    }

    /// A derived attribute declared by names (`Derived+Names.swift`).
    init(name: String, initialValue: Value, derivation: DerivationDeclaration) {
        self.derivation = derivation
        super.init(derivedName: name, initialValue: initialValue)
    }

    /// The number of objects in `relationship` that match `predicate`.
    public init<Parent: ManagedObject, Child: ManagedObject>(
        count relationship: KeyPath<Parent, Set<Child>> & Sendable, where predicate: Predicate<Child>? = nil, name: String
    ) where Value == Int {
        derivation = DerivationDeclaration(kind: .count, relationship: relationship, attribute: nil, predicate: predicate)
        super.init(derivedName: name, initialValue: 0)
    }

    /// The sum of `attribute` over the objects in `relationship` that match `predicate`.
    public init<Parent: ManagedObject, Child: ManagedObject>(
        sum relationship: KeyPath<Parent, Set<Child>> & Sendable, of attribute: KeyPath<Child, Value> & Sendable,
        where predicate: Predicate<Child>? = nil, name: String
    ) where Value: AttributeValue & AdditiveArithmetic {
        derivation = DerivationDeclaration(kind: .sum, relationship: relationship, attribute: attribute, predicate: predicate)
        super.init(derivedName: name, initialValue: .zero)
    }

    /// The smallest `attribute` of the objects in `relationship` that match `predicate`.
    public init<Parent: ManagedObject, Child: ManagedObject, Element: AttributeValue & Comparable>(
        min relationship: KeyPath<Parent, Set<Child>> & Sendable, of attribute: KeyPath<Child, Element> & Sendable,
        where predicate: Predicate<Child>? = nil, name: String
    ) where Value == Element? {
        derivation = DerivationDeclaration(kind: .min, relationship: relationship, attribute: attribute, predicate: predicate)
        super.init(derivedName: name, initialValue: nil)
    }

    /// The largest `attribute` of the objects in `relationship` that match `predicate`.
    public init<Parent: ManagedObject, Child: ManagedObject, Element: AttributeValue & Comparable>(
        max relationship: KeyPath<Parent, Set<Child>> & Sendable, of attribute: KeyPath<Child, Element> & Sendable,
        where predicate: Predicate<Child>? = nil, name: String
    ) where Value == Element? {
        derivation = DerivationDeclaration(kind: .max, relationship: relationship, attribute: attribute, predicate: predicate)
        super.init(derivedName: name, initialValue: nil)
    }

    /// The average of `attribute` over the objects in `relationship` that match `predicate`.
    public init<Parent: ManagedObject, Child: ManagedObject, Number: AttributeValue & Numeric>(
        average relationship: KeyPath<Parent, Set<Child>> & Sendable, of attribute: KeyPath<Child, Number> & Sendable,
        where predicate: Predicate<Child>? = nil, name: String
    ) where Value == Double? {
        derivation = DerivationDeclaration(kind: .average, relationship: relationship, attribute: attribute, predicate: predicate)
        super.init(derivedName: name, initialValue: nil)
    }

    /// A copy of `attribute` of the object the to-one `relationship` leads to.
    public init<Parent: ManagedObject, Destination: ManagedObject, Copied: AttributeValue>(
        _ relationship: KeyPath<Parent, Destination?> & Sendable, _ attribute: KeyPath<Destination, Copied> & Sendable, name: String
    ) where Value == Copied? {
        derivation = DerivationDeclaration(kind: .copy, relationship: relationship, attribute: attribute, predicate: Predicate<Destination>?.none)
        super.init(derivedName: name, initialValue: nil)
    }
}

/// What a `@Derived` property derives.
enum DerivationKind: Sendable, Hashable {
    case count, sum, min, max, average, copy
}

/// A `@Derived` property's declaration, as the model reads it.
struct DerivationDeclaration: @unchecked Sendable {
    let kind: DerivationKind
    /// The relationship followed: by key path (`@Derived`) or by name (a
    /// model file's derivation expression).
    let relationship: AnyKeyPath?
    let relationshipName: String?
    /// The attribute read, if any: by key path or by name.
    let attribute: AnyKeyPath?
    let attributeName: String?
    /// Evaluates the predicate on a child (true without a predicate).
    let matches: @Sendable (ManagedObject) throws -> Bool
    /// The predicate for SQL (batch requests recompute in the store).
    let expression: (any StandardPredicateExpression<Bool>)?
    let variable: PredicateExpressions.VariableID?
    /// Why a format predicate could not be read; the model refuses it.
    let formatError: String?

    init<Child: ManagedObject>(kind: DerivationKind, relationship: AnyKeyPath, attribute: AnyKeyPath?, predicate: Predicate<Child>?) {
        self.kind = kind
        self.relationship = relationship
        self.attribute = attribute
        relationshipName = nil
        attributeName = nil
        expression = predicate?.expression
        variable = predicate?.variable.key
        formatError = nil
        if let predicate {
            matches = { object in
                guard let child = object as? Child else { return false }
                return try predicate.evaluate(child)
            }
        } else {
            matches = { _ in true }
        }
    }

    /// A derivation by names: a model file's (`items.@sum.price`, no
    /// predicate), or `@Derived`'s by name, whose predicate is a format
    /// string read on the child (`read == NO`).
    init(kind: DerivationKind, relationshipName: String, attributeName: String?, predicateFormat: String? = nil) {
        self.kind = kind
        relationship = nil
        attribute = nil
        self.relationshipName = relationshipName
        self.attributeName = attributeName
        guard let predicateFormat else {
            expression = nil
            variable = nil
            formatError = nil
            matches = { _ in true }
            return
        }
        do {
            let predicate = try Predicate<ManagedObject>(validatingFormat: predicateFormat)
            expression = predicate.expression
            variable = predicate.variable.key
            formatError = nil
            matches = { object in try predicate.evaluate(object) }
        } catch {
            expression = nil
            variable = nil
            formatError = "its predicate \"\(predicateFormat)\" is invalid: \(error)"
            matches = { _ in false }
        }
    }
}
