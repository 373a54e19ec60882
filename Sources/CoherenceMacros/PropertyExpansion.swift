import SwiftSyntax
import SwiftSyntaxMacros

/// The accessors `@Attribute` and `@Relationship` generate: `get` and `set`
/// through the object (`_read`, `_write` with the property's declaration),
/// and for a property with an initial value an `init` accessor, so that Swift
/// still infers the property's type from that value (`var title = ""`) and
/// the initializer stays legal on what is now a computed property. The
/// initial value itself is the entity's default value, which the declaration
/// keeps as static data; the object stores nothing for it.
enum Accessors {
    static func readWrite(_ property: PropertySyntax) -> [AccessorDeclSyntax] {
        var accessors: [AccessorDeclSyntax] = []
        if property.initializer != nil {
            // The initial value is the entity's default value, kept by the
            // declaration; the object stores nothing for it.
            accessors.append("""
                @storageRestrictions(initializes: _\(raw: property.name))
                init(initialValue) {
                    _\(raw: property.name) = Coherence.PropertyField()
                }
                """)
        }
        accessors.append("get { _read(\(raw: property.declarationType).declaration) }")
        accessors.append("set { _write(\(raw: property.declarationType).declaration, newValue) }")
        return accessors
    }
}

/// The peers every property macro generates:
/// - `_name`, a zero-size field whose type names the declaration: what makes
///   the property visible to the model, which lists an entity's properties
///   from a `Mirror` of one instance (Swift has no public API that lists a
///   class's stored properties otherwise);
/// - `__Coherence_name`, a nested type holding the declaration as static
///   data (`declaration`: name, options, default value, inverse, delete
///   rule or derivation, type-checked as the macro's arguments were) and the
///   property's key path rooted at any subclass (`keyPath(rootedAt:)`: the
///   class is opened from an existential of a class-and-protocol
///   composition, so that `\Car.name` is found for a property `Vehicle`
///   declares).
enum Peers {
    static func make(_ property: PropertySyntax, declarationProtocol: String, declaration: String) -> [DeclSyntax] {
        let type = property.declarationType, root = property.className
        return [
            "private var _\(raw: property.name) = Coherence.PropertyField<\(raw: type)>()",
            """
            enum \(raw: type): Coherence.\(raw: declarationProtocol) {
                static let declaration = \(raw: declaration)
                static func keyPath(rootedAt type: AnyClass) -> AnyKeyPath? {
                    func make<__CoherenceRoot: \(raw: root) & Coherence._EntityClass>(_: __CoherenceRoot.Type) -> AnyKeyPath { \\__CoherenceRoot.\(raw: property.spelling) }
                    guard let opened = type as? any (\(raw: root) & Coherence._EntityClass).Type else { return nil }
                    return make(opened)
                }
            }
            """,
        ]
    }
}
