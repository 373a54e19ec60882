import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that serves Coherence's macros.
@main struct Plugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [AttributeMacro.self, RelationshipMacro.self, DerivedMacro.self, ManagedMacro.self]
}
