import SwiftSyntax
import SwiftSyntaxMacros

/// `@Managed`, Core Data's `@NSManaged`: on a property (in a class body or
/// an extension), accessors that read and write the entity's property of
/// that name, a nested type holding its declaration and, for a to-many
/// property (`NSSet?`, `Set<Destination>`), Core Data's generated
/// accessors `addToX(_:)` and `removeFromX(_:)`; for an ordered one
/// (`NSOrderedSet?`) also those by index: `insertIntoX(_:at:)`,
/// `removeFromX(at:)`, `replaceX(at:with:)`.
public struct ManagedMacro: AccessorMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        // Misuse is reported once, by the peer expansion.
        guard let property = try? ManagedProperty(declaration) else { return [] }
        return [
            "get { _read(\(raw: property.declarationType).declaration) }",
            "set { _write(\(raw: property.declarationType).declaration, newValue) }",
        ]
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        if let function = declaration.as(FunctionDeclSyntax.self) {
            throw MacroError.at(function, "@Managed applies to properties; delete the accessor function \(function.name.text): "
                                + "@Managed on a to-many property generates addToX(_:) and removeFromX(_:)")
        }
        let property = try ManagedProperty(declaration)
        var peers: [DeclSyntax] = [
            """
            enum \(raw: property.declarationType) {
                static let declaration = Coherence.ManagedDeclaration<\(property.type)>(name: "\(raw: property.name)")
            }
            """,
        ]
        if let element = property.toManyElement {
            let suffix = property.name.prefix(1).uppercased() + property.name.dropFirst()
            let key = "\"\(property.name)\""
            let access = property.access
            if element.set == "NSOrderedSet" {
                // Xcode's accessors of an ordered relationship, in its order.
                let single = element.single
                peers += [
                    "\(raw: access)func insertInto\(raw: suffix)(_ value: \(raw: single), at idx: Int) { _insertIntoRelationship(\(raw: key), value, at: [idx]) }",
                    "\(raw: access)func removeFrom\(raw: suffix)(at idx: Int) { _removeFromRelationship(\(raw: key), at: [idx]) }",
                    "\(raw: access)func insertInto\(raw: suffix)(_ values: [\(raw: single)], at indexes: NSIndexSet) { _insertIntoRelationship(\(raw: key), values, at: Array(indexes as IndexSet)) }",
                    "\(raw: access)func removeFrom\(raw: suffix)(at indexes: NSIndexSet) { _removeFromRelationship(\(raw: key), at: Array(indexes as IndexSet)) }",
                    "\(raw: access)func replace\(raw: suffix)(at idx: Int, with value: \(raw: single)) { _replaceInRelationship(\(raw: key), at: [idx], with: value) }",
                    "\(raw: access)func replace\(raw: suffix)(at indexes: NSIndexSet, with values: [\(raw: single)]) { _replaceInRelationship(\(raw: key), at: Array(indexes as IndexSet), with: values) }",
                ]
            }
            for type in [element.single, element.set] {
                let label = type == element.single ? "value" : "values"
                peers.append("\(raw: access)func addTo\(raw: suffix)(_ \(raw: label): \(raw: type)) { _addToRelationship(\(raw: key), \(raw: label)) }")
                peers.append("\(raw: access)func removeFrom\(raw: suffix)(_ \(raw: label): \(raw: type)) { _removeFromRelationship(\(raw: key), \(raw: label)) }")
            }
        }
        return peers
    }
}

/// A `@Managed` property: a `var` with a type and no initial value or
/// accessors, as Xcode generates them.
struct ManagedProperty {
    let name: String
    let type: TypeSyntax
    /// The property's access modifier and a space, or nothing.
    let access: String

    init(_ declaration: some DeclSyntaxProtocol) throws {
        guard let variable = declaration.as(VariableDeclSyntax.self), variable.bindingSpecifier.tokenKind == .keyword(.var),
              variable.bindings.count == 1, let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
            throw MacroError.at(declaration, "@Managed applies to one `var` per declaration, or to a to-many accessor function")
        }
        guard let annotation = binding.typeAnnotation else {
            throw MacroError.at(binding, "@Managed var \(identifier.identifier.text) needs a type: the model holds its value, not an initial value")
        }
        if let initializer = binding.initializer {
            throw MacroError.at(initializer, "@Managed var \(identifier.identifier.text) takes its default value from the model; remove the initial value")
        }
        guard binding.accessorBlock == nil else {
            throw MacroError.at(binding, "@Managed applies to a property without accessors; \(identifier.identifier.text) has some")
        }
        if let modifier = variable.modifiers.first(where: { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }) {
            throw MacroError.at(modifier, "@Managed applies to instance properties")
        }
        name = identifier.identifier.identifier?.name ?? identifier.identifier.text
        access = variable.modifiers.first { ["public", "internal", "fileprivate", "private", "package", "open"].contains($0.name.text) }
            .map { $0.name.text == "open" ? "public " : "\($0.name.text) " } ?? ""
        if let optional = annotation.type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            type = TypeSyntax(OptionalTypeSyntax(wrappedType: optional.wrappedType.trimmed))
        } else {
            type = annotation.type.trimmed
        }
    }

    /// The nested type that carries the property's declaration.
    var declarationType: String { "__Coherence_\(name)" }

    /// For a to-many property, the parameter types of its generated
    /// accessors: one object and a set (`ManagedObject` and `NSSet` for
    /// `NSSet?`, `ManagedObject` and `NSOrderedSet` for `NSOrderedSet?`,
    /// `Destination` and `Set<Destination>` for a `Set`).
    var toManyElement: (single: String, set: String)? {
        var written = type
        if let optional = written.as(OptionalTypeSyntax.self) { written = optional.wrappedType }
        if let identifier = written.as(IdentifierTypeSyntax.self) {
            if identifier.name.text == "NSSet", identifier.genericArgumentClause == nil { return ("Coherence.ManagedObject", "NSSet") }
            if identifier.name.text == "NSOrderedSet", identifier.genericArgumentClause == nil { return ("Coherence.ManagedObject", "NSOrderedSet") }
            if identifier.name.text == "Set", let argument = identifier.genericArgumentClause?.arguments.first {
                return (argument.argument.trimmedDescription, "Set<\(argument.argument.trimmedDescription)>")
            }
        }
        return nil
    }
}
