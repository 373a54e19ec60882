import SwiftSyntax
import SwiftSyntaxMacros

/// `@Derived`: a read-only accessor; Coherence computes the value.
public struct DerivedMacro: AccessorMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        // Misuse is reported once, by the peer expansion.
        guard let property = try? PropertySyntax(declaration, attribute: node, macro: "Derived", in: context) else { return [] }
        return ["get { _read(\(raw: property.declarationType).declaration) }"]
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        let property = try PropertySyntax(declaration, attribute: node, macro: "Derived", in: context)
        guard let type = property.type else {
            throw MacroError.at(declaration, "@Derived var \(property.name) needs its type written (`Int`, `Double`, `Date?`)")
        }
        guard property.initializer == nil else {
            throw MacroError.at(declaration, "@Derived var \(property.name) has no initial value: Coherence computes it")
        }
        let call = "Coherence.DerivedDeclaration<\(type)>(\(property.argumentList(adding: [("name", "\"\(property.name)\"")])))"
        return Peers.make(property, declarationProtocol: "DerivedDeclaring", declaration: call)
    }
}
