import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute`: accessors that read and write through the object's
/// context, a zero-size field that marks the property for the model, and a
/// nested type holding its declaration as static data.
public struct AttributeMacro: AccessorMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        let property = try PropertySyntax(declaration, attribute: node, macro: "Attribute", in: context)
        return Accessors.readWrite(property)
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        let property = try PropertySyntax(declaration, attribute: node, macro: "Attribute", in: context)
        guard property.type != nil || property.initializer != nil else {
            throw MacroError.at(declaration, "@Attribute var \(property.name) needs a type or an initial value")
        }
        let defaultValue = property.initializer.map { "{ \($0) }" } ?? "nil"
        let generic = property.type.map { "<\($0)>" } ?? ""
        let call = "Coherence.AttributeDeclaration\(generic)(\(property.argumentList(adding: [("name", "\"\(property.name)\""), ("default", defaultValue)])))"
        return Peers.make(property, declarationProtocol: "AttributeDeclaring", declaration: call)
    }
}
