import SwiftSyntax
import SwiftSyntaxMacros

/// `@Relationship`: as ``AttributeMacro``; the type must be written
/// (`Server?`, `Set<FeedItem>`).
public struct RelationshipMacro: AccessorMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        // Misuse is reported once, by the peer expansion.
        guard let property = try? PropertySyntax(declaration, attribute: node, macro: "Relationship", in: context) else { return [] }
        return Accessors.readWrite(property)
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        let property = try PropertySyntax(declaration, attribute: node, macro: "Relationship", in: context)
        guard let type = property.type else {
            throw MacroError.at(declaration, "@Relationship var \(property.name) needs its type written: `Server?` or `Set<FeedItem>`")
        }
        if let initializer = property.initializer, !initializer.is(NilLiteralExprSyntax.self),
           initializer.as(ArrayExprSyntax.self)?.elements.isEmpty != true {
            throw MacroError.at(property.initializerNode ?? initializer, "@Relationship var \(property.name) starts empty: its initial value can only be `nil` or `[]`")
        }
        let call = "Coherence.RelationshipDeclaration<\(type)>(\(property.argumentList(adding: [("name", "\"\(property.name)\"")])))"
        return Peers.make(property, declarationProtocol: "RelationshipDeclaring", declaration: call)
    }
}
