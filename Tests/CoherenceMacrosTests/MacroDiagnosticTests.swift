import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Declarations the macros cannot expand are errors at the offending
/// syntax, naming the property and what to write instead.
@Suite("Macro diagnostics")
struct MacroDiagnosticTests {
    @Test(arguments: [
        ("final class A: ManagedObject {\n    @Attribute let name = \"\"\n}", "needs `var`", 2, 16),
        ("final class A: ManagedObject {\n    @Attribute static var name = \"\"\n}", "name is static", 2, 16),
        ("final class A: ManagedObject {\n    @Attribute var first = 0, second = 1\n}", "accessor macro can only be applied to a single variable", 2, 5),
        ("final class A: ManagedObject {\n    @Attribute var name: String { \"\" }\n}", "name has accessors", 2, 20),
        ("struct A {\n    @Attribute var name = \"\"\n}", "properties of a ManagedObject subclass", 2, 5),
        ("final class A<T>: ManagedObject {\n    @Attribute var name = \"\"\n}", "A is generic", 2, 5),
        ("final class A: ManagedObject {\n    @Attribute var name\n}", "needs a type or an initial value", 2, 5),
        ("final class A: ManagedObject {\n    @Relationship var items = []\n}", "needs its type written", 2, 5),
        ("final class A: ManagedObject {\n    @Attribute lazy var name = \"\"\n}", "cannot be lazy", 2, 16),
        ("final class A: ManagedObject {\n    @Relationship weak var b: B?\n}", "cannot be weak", 2, 19),
        ("final class A: B {\n    @Attribute override var name = \"\"\n}", "cannot be override", 2, 16),
        ("final class A: ManagedObject {\n    @Attribute var name = Self.initial\n}", "write A instead of Self", 2, 27),
        ("enum Outer<T> {\n    final class A: ManagedObject {\n        @Attribute var name = \"\"\n    }\n}", "Outer is generic", 2, 9), // (swift-syntax's test harness counts a nested class's lines from its own)
        ("final class A: ManagedObject {\n    @Relationship var items: Set<B> = [b]\n}", "can only be `nil` or `[]`", 2, 39),
        ("final class A: ManagedObject {\n    @Derived(count: \\A.items) var count: Int = 0\n}", "has no initial value: Coherence computes it", 2, 5),
        ("extension A {\n    @Managed var name = \"\"\n}", "needs a type", 2, 18),
        ("extension A {\n    @Managed var name: String = \"\"\n}", "takes its default value from the model", 2, 31),
        ("extension A {\n    @Managed func addToItems(_ value: B) {}\n}", "delete the accessor function addToItems", 2, 5),
    ])
    func misuseIsAnError(source: String, message: String, line: Int, column: Int) {
        var failures: [String] = []
        assertMacroExpansion(source, expandedSource: "", macroSpecs: coherenceMacros, failureHandler: { failures.append($0.message) })
        // Read from what was reported ("line:column: message" per
        // diagnostic) rather than spelled out in full: the expansion (the
        // declaration left as written) is not the point.
        let diagnostics = failures.joined(separator: "\n").split(separator: "\n").filter { $0.contains(message) }
        #expect(!diagnostics.isEmpty, "a diagnostic says \(message)")
        #expect(diagnostics.allSatisfy { $0.hasPrefix("\(line):\(column): ") }, "at \(line):\(column): \(diagnostics)")
        #expect(diagnostics.count == 1, "reported once: \(diagnostics)")
    }
}
