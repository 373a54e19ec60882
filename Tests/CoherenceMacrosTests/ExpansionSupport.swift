import CoherenceMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under their names in source.
let coherenceMacros: [String: MacroSpec] = [
    "Attribute": MacroSpec(type: AttributeMacro.self),
    "Relationship": MacroSpec(type: RelationshipMacro.self),
    "Derived": MacroSpec(type: DerivedMacro.self),
    "Managed": MacroSpec(type: ManagedMacro.self),
]

/// swift-syntax's expansion assertion, reporting to Swift Testing.
func expectExpansion(_ source: String, expandsTo expanded: String, diagnostics: [DiagnosticSpec] = [],
                     sourceLocation: SourceLocation = #_sourceLocation) {
    assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: coherenceMacros,
                         failureHandler: { failure in Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation) })
}
