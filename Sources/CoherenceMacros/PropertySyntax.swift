import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A stored property a Coherence macro is attached to, as the macros read
/// it: its name, written type, initial value, enclosing class and the
/// macro's arguments. Anything a macro cannot expand (a `let`, several
/// bindings, accessors, a static, lazy, weak or overriding property, a
/// property outside a class body, a generic class or one nested in a generic
/// type, an initial value that uses `Self`) is a diagnostic at the offending
/// syntax.
struct PropertySyntax {
    /// The name, without backticks: `default` for ``var `default` ``.
    let name: String
    /// The name as written, backticks included, for references to it.
    let spelling: String
    /// The type as written; an implicitly unwrapped optional (`String!`)
    /// as an optional (`String?`), the type its values have.
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
        let refused: [Keyword: String] = [
            .lazy: "Coherence gives it its value when the object is inserted or loaded",
            .weak: "a relationship keeps its destinations' IDs, never the objects",
            .unowned: "a relationship keeps its destinations' IDs, never the objects",
            .override: "a property of the entity's superclass is already the entity's",
        ]
        for modifier in variable.modifiers {
            guard case .keyword(let keyword) = modifier.name.tokenKind, let reason = refused[keyword] else { continue }
            throw MacroError.at(modifier, "@\(macro) cannot be \(modifier.name.text): \(reason)")
        }
        guard let enclosing = context.lexicalContext.first?.as(ClassDeclSyntax.self) else {
            throw MacroError.at(variable, "@\(macro) applies to properties of a ManagedObject subclass, declared in its body")
        }
        if let generic = context.lexicalContext.lazy.compactMap(Self.genericTypeName).first {
            throw MacroError.at(variable, "@\(macro) applies to properties of a non-generic class: \(generic) is generic "
                             + "(an entity's declarations are static data, which a generic type cannot hold)")
        }
        if let initializer = binding.initializer?.value,
           let token = initializer.tokens(viewMode: .sourceAccurate).first(where: { $0.tokenKind == .keyword(.Self) }) {
            throw MacroError.at(token, "the initial value of \(identifier.identifier.text) is kept outside the class: write \(enclosing.name.text) instead of Self")
        }
        let className = enclosing.name.text
        name = identifier.identifier.identifier?.name ?? identifier.identifier.text
        spelling = identifier.identifier.text
        if let optional = binding.typeAnnotation?.type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            type = TypeSyntax(OptionalTypeSyntax(wrappedType: optional.wrappedType.trimmed))
        } else {
            type = binding.typeAnnotation?.type.trimmed
        }
        initializer = binding.initializer?.value.trimmed
        initializerNode = binding.initializer?.value
        self.className = className
        if case .argumentList(let list) = attribute.arguments { arguments = list } else { arguments = nil }
    }

    /// The name of a generic type among a macro's lexical contexts.
    private static func genericTypeName(_ context: Syntax) -> String? {
        if let type = context.as(ClassDeclSyntax.self), type.genericParameterClause != nil { return type.name.text }
        if let type = context.as(StructDeclSyntax.self), type.genericParameterClause != nil { return type.name.text }
        if let type = context.as(EnumDeclSyntax.self), type.genericParameterClause != nil { return type.name.text }
        if let type = context.as(ActorDeclSyntax.self), type.genericParameterClause != nil { return type.name.text }
        return nil
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
