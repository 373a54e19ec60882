import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute`: accessors that read and write through the object's
/// context, a zero-size field that marks the property for the model, and a
/// nested type holding its declaration as static data.
public struct AttributeMacro: AccessorMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        // Misuse is reported once, by the peer expansion.
        guard let property = try? PropertySyntax(declaration, attribute: node, macro: "Attribute", in: context) else { return [] }
        return Accessors.readWrite(property)
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        let property = try PropertySyntax(declaration, attribute: node, macro: "Attribute", in: context)
        guard property.type != nil || property.initializer != nil else {
            throw MacroError.at(declaration, "@Attribute var \(property.name) needs a type or an initial value")
        }
        // An initial value written as a literal is encoded once; any other
        // is computed for each new object, as a stored property's is.
        var extra = [("name", "\"\(property.name)\"")]
        if let initializer = property.initializer {
            extra.append(InitialValue.isLiteral(initializer) ? ("constant", "\(initializer)") : ("default", "{ \(initializer) }"))
        }
        let generic = property.type.map { "<\($0)>" } ?? ""
        let call = "Coherence.AttributeDeclaration\(generic)(\(property.argumentList(adding: extra)))"
        return Peers.make(property, declarationProtocol: "AttributeDeclaring", declaration: call)
    }
}

/// Which initial values are literals: evaluating them once gives the value
/// every object would get.
enum InitialValue {
    static func isLiteral(_ expression: ExprSyntax) -> Bool {
        switch expression.kind {
        case .integerLiteralExpr, .floatLiteralExpr, .booleanLiteralExpr, .nilLiteralExpr:
            return true
        case .stringLiteralExpr:
            // Without interpolations.
            return expression.as(StringLiteralExprSyntax.self)?.segments.allSatisfy { $0.is(StringSegmentSyntax.self) } ?? false
        case .prefixOperatorExpr:
            guard let prefix = expression.as(PrefixOperatorExprSyntax.self) else { return false }
            return prefix.operator.text == "-" && isLiteral(prefix.expression)
        case .arrayExpr:
            return expression.as(ArrayExprSyntax.self)?.elements.allSatisfy { isLiteral($0.expression) } ?? false
        case .dictionaryExpr:
            guard let dictionary = expression.as(DictionaryExprSyntax.self) else { return false }
            guard case .elements(let elements) = dictionary.content else { return true }
            return elements.allSatisfy { isLiteral($0.key) && isLiteral($0.value) }
        default:
            return false
        }
    }
}
