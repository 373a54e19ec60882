import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A stored property a Coherence macro is attached to, as the macros read
/// it: its name, written type, initial value, enclosing class and the
/// macro's arguments. Anything a macro cannot expand (a `let`, several
/// bindings, accessors, a static property, a property outside a class body,
/// a generic class) is a diagnostic at the offending syntax.
struct PropertySyntax {
    let name: String
    let type: TypeSyntax?
    let initializer: ExprSyntax?
    /// The initial value where it is written, for diagnostics.
    let initializerNode: ExprSyntax?
    let className: String
    let arguments: LabeledExprListSyntax?

    /// Reads `declaration`; throws a diagnostic naming what is wrong.
    init(_ declaration: some DeclSyntaxProtocol, attribute: AttributeSyntax, macro: String,
         in context: some MacroExpansionContext) throws {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            throw MacroError.at(declaration, "@\(macro) applies to a stored property (`var`) of a ManagedObject subclass")
        }
        guard variable.bindingSpecifier.tokenKind == .keyword(.var) else {
            throw MacroError.at(variable.bindingSpecifier, "@\(macro) needs `var`: Coherence writes the property when it loads, merges or refreshes the object")
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
            throw MacroError.at(variable, "@\(macro) applies to one property per declaration")
        }
        guard binding.accessorBlock == nil else {
            throw MacroError.at(binding, "@\(macro) applies to a stored property; \(identifier.identifier.text) has accessors")
        }
        if let modifier = variable.modifiers.first(where: { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }) {
            throw MacroError.at(modifier, "@\(macro) applies to instance properties; \(identifier.identifier.text) is \(modifier.name.text)")
        }
        guard let enclosing = context.lexicalContext.first?.as(ClassDeclSyntax.self) else {
            throw MacroError.at(variable, "@\(macro) applies to properties of a ManagedObject subclass, declared in its body")
        }
        guard enclosing.genericParameterClause == nil else {
            throw MacroError.at(variable, "@\(macro) applies to properties of a non-generic class: \(enclosing.name.text) is generic "
                             + "(an entity's declarations are static data, which a generic class cannot hold)")
        }
        let className = enclosing.name.text
        name = identifier.identifier.text
        type = binding.typeAnnotation?.type.trimmed
        initializer = binding.initializer?.value.trimmed
        initializerNode = binding.initializer?.value
        self.className = className
        if case .argumentList(let list) = attribute.arguments { arguments = list } else { arguments = nil }
    }

    /// The macro's arguments, followed by `extra` labelled arguments, as the
    /// argument list of a call.
    func argumentList(adding extra: [(label: String, value: String)]) -> String {
        var parts = (arguments ?? []).map { $0.trimmedDescription.hasSuffix(",") ? String($0.trimmedDescription.dropLast()) : $0.trimmedDescription }
        parts += extra.map { "\($0.label): \($0.value)" }
        return parts.joined(separator: ", ")
    }

    /// The nested type that carries the property's declaration.
    var declarationType: String { "__Coherence_\(name)" }
}

/// A macro's error, reported at the syntax that caused it (thrown as
/// swift-syntax's `DiagnosticsError`, which carries the position; another
/// error would be reported at the attribute).
struct MacroError: DiagnosticMessage {
    let message: String
    var diagnosticID: MessageID { MessageID(domain: "Coherence", id: "declaration") }
    var severity: DiagnosticSeverity { .error }

    /// The error to throw: `message` at `node`.
    static func at(_ node: some SyntaxProtocol, _ message: String) -> DiagnosticsError {
        DiagnosticsError(diagnostics: [Diagnostic(node: Syntax(node), message: MacroError(message: message))])
    }
}
