import Foundation

// `@Derived` by name: the relationship and attribute named as strings and
// the predicate written in Core Data's format syntax, for the classes of a
// model file's entities, whose `@Managed` properties Swift gives no way to
// name from their key paths:
//
//     public class Server: ManagedObject {          // Server+CoreDataClass.swift
//         @Derived(count: "feedItems", where: "read == NO")
//         public var unreadCount: Int
//     }
//
// The model file declares the schema and the class adds the derived
// attribute, which a model file cannot express with a filter. The names
// are checked when the model is built (``ModelError/invalidDerivation(entity:property:reason:)``),
// and the predicate is translated to SQL as a format predicate is.

/// The number of objects in the to-many relationship named `relationship`
/// that match the format predicate `predicate` (read on each of them).
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived(count relationship: String, where predicate: String? = nil)
    = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// The sum of the attribute named `attribute` over the objects in the
/// to-many relationship named `relationship` that match `predicate`.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived(sum relationship: String, of attribute: String, where predicate: String? = nil)
    = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// The smallest value of the attribute named `attribute` among the objects
/// in the to-many relationship named `relationship` that match `predicate`;
/// `nil` when none does.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived(min relationship: String, of attribute: String, where predicate: String? = nil)
    = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// The largest value of the attribute named `attribute` among the objects
/// in the to-many relationship named `relationship` that match `predicate`;
/// `nil` when none does.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived(max relationship: String, of attribute: String, where predicate: String? = nil)
    = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// The average of the attribute named `attribute` over the objects in the
/// to-many relationship named `relationship` that match `predicate`; `nil`
/// when none does.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived(average relationship: String, of attribute: String, where predicate: String? = nil)
    = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

/// A copy of the attribute named `attribute` of the object the to-one
/// relationship named `relationship` leads to; `nil` when it leads to none.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Derived(_ relationship: String, _ attribute: String)
    = #externalMacro(module: "CoherenceMacros", type: "DerivedMacro")

extension DerivedDeclaration {
    /// The number of objects in `relationship` that match the format `predicate`.
    public convenience init(count relationship: String, where predicate: String? = nil, name: String) where Value == Int {
        self.init(name: name, initialValue: 0,
                  derivation: DerivationDeclaration(kind: .count, relationshipName: relationship, attributeName: nil, predicateFormat: predicate))
    }

    /// The sum of `attribute` over the objects in `relationship` that match the format `predicate`.
    public convenience init(sum relationship: String, of attribute: String, where predicate: String? = nil, name: String)
    where Value: AttributeValue & AdditiveArithmetic {
        self.init(name: name, initialValue: .zero,
                  derivation: DerivationDeclaration(kind: .sum, relationshipName: relationship, attributeName: attribute, predicateFormat: predicate))
    }

    /// The smallest `attribute` of the objects in `relationship` that match the format `predicate`.
    public convenience init<Element: AttributeValue & Comparable>(min relationship: String, of attribute: String, where predicate: String? = nil,
                                                                  name: String) where Value == Element? {
        self.init(name: name, initialValue: nil,
                  derivation: DerivationDeclaration(kind: .min, relationshipName: relationship, attributeName: attribute, predicateFormat: predicate))
    }

    /// The largest `attribute` of the objects in `relationship` that match the format `predicate`.
    public convenience init<Element: AttributeValue & Comparable>(max relationship: String, of attribute: String, where predicate: String? = nil,
                                                                  name: String) where Value == Element? {
        self.init(name: name, initialValue: nil,
                  derivation: DerivationDeclaration(kind: .max, relationshipName: relationship, attributeName: attribute, predicateFormat: predicate))
    }

    /// The average of `attribute` over the objects in `relationship` that match the format `predicate`.
    public convenience init(average relationship: String, of attribute: String, where predicate: String? = nil, name: String)
    where Value == Double? {
        self.init(name: name, initialValue: nil,
                  derivation: DerivationDeclaration(kind: .average, relationshipName: relationship, attributeName: attribute,
                                                    predicateFormat: predicate))
    }

    /// A copy of `attribute` of the object the to-one `relationship` leads to.
    public convenience init<Copied: AttributeValue>(_ relationship: String, _ attribute: String, name: String) where Value == Copied? {
        self.init(name: name, initialValue: nil,
                  derivation: DerivationDeclaration(kind: .copy, relationshipName: relationship, attributeName: attribute))
    }
}
