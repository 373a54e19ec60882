import Foundation

/// Parses a predicate format string, with its substitution arguments, into a
/// ``FormatNode``. Follows the grammar of Apple's "BNF Definition of Cocoa
/// Predicates" for the parts Coherence supports; keywords are
/// case-insensitive.
struct FormatParser {
    private let tokens: [FormatToken]
    private var index = 0
    private let arguments: [Any?]
    private var argumentIndex = 0
    /// How deeply parentheses and NOT nest here, and how many terms
    /// (comparisons, operators, listed values) were read: bounded, so that no
    /// input can exhaust the stack or SQLite's expression and parameter limits.
    private var depth = 0
    private var terms = 0
    static let maximumDepth = 100
    static let maximumTerms = 10_000

    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "ANY", "ALL",
        "NONE", "SOME", "NIL", "NULL", "YES", "NO", "TRUE", "FALSE", "TRUEPREDICATE", "FALSEPREDICATE", "SELF", "SUBQUERY",
    ]
    /// The variable of the `SUBQUERY` being parsed (`$x`), if any.
    private var subqueryVariable: String?

    init(format: String, arguments: [Any?]) throws(PredicateFormatError) {
        tokens = try FormatTokenizer.tokens(format)
        self.arguments = arguments
    }

    /// The whole predicate; every argument must be used.
    mutating func parse() throws(PredicateFormatError) -> FormatNode {
        let node = try disjunction()
        guard current.kind == .end else { throw unexpected("AND, OR or the end of the predicate") }
        guard argumentIndex == arguments.count else { throw .unusedArguments(expected: argumentIndex, given: arguments.count) }
        return node
    }

    // MARK: Tokens

    private var current: FormatToken { tokens[index] }

    private mutating func advance() -> FormatToken {
        defer { if index < tokens.count - 1 { index += 1 } }
        return tokens[index]
    }

    private func unexpected(_ expected: String) -> PredicateFormatError {
        .syntax(position: current.position, expected: expected, found: current.display)
    }

    /// Whether the current token is one of these keywords (any case).
    private func isKeyword(_ names: String...) -> String? {
        guard case .word(let word) = current.kind else { return nil }
        let upper = word.uppercased()
        return names.contains(upper) ? upper : nil
    }

    private func isSymbol(_ symbols: String...) -> String? {
        guard case .symbol(let symbol) = current.kind, symbols.contains(symbol) else { return nil }
        return symbol
    }

    private mutating func expect(symbol: String) throws(PredicateFormatError) {
        guard isSymbol(symbol) != nil else { throw unexpected("'\(symbol)'") }
        _ = advance()
    }

    // MARK: Predicates

    private mutating func disjunction() throws(PredicateFormatError) -> FormatNode {
        var nodes = [try conjunction()]
        while isKeyword("OR") != nil || isSymbol("||") != nil {
            _ = advance()
            try spend(1)
            nodes.append(try conjunction())
        }
        return Self.balanced(nodes[...], FormatNode.or)
    }

    private mutating func conjunction() throws(PredicateFormatError) -> FormatNode {
        var nodes = [try negation()]
        while isKeyword("AND") != nil || isSymbol("&&") != nil {
            _ = advance()
            try spend(1)
            nodes.append(try negation())
        }
        return Self.balanced(nodes[...], FormatNode.and)
    }

    /// `a AND b AND c …` as a balanced tree, so that long chains stay shallow.
    private static func balanced(_ nodes: ArraySlice<FormatNode>, _ combine: (FormatNode, FormatNode) -> FormatNode) -> FormatNode {
        if nodes.count == 1 { return nodes.first! }
        let middle = nodes.startIndex + nodes.count / 2
        return combine(balanced(nodes[..<middle], combine), balanced(nodes[middle...], combine))
    }

    private mutating func negation() throws(PredicateFormatError) -> FormatNode {
        if isKeyword("NOT") != nil || isSymbol("!") != nil {
            try enter()
            _ = advance()
            defer { depth -= 1 }
            return .not(try negation())
        }
        return try primary()
    }

    private mutating func enter() throws(PredicateFormatError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw .syntax(position: current.position, expected: "at most \(Self.maximumDepth) nested parentheses and NOTs", found: "more")
        }
    }

    private mutating func spend(_ count: Int) throws(PredicateFormatError) {
        terms += count
        guard terms <= Self.maximumTerms else {
            throw .syntax(position: current.position, expected: "at most \(Self.maximumTerms) terms", found: "more")
        }
    }

    private mutating func primary() throws(PredicateFormatError) -> FormatNode {
        if isSymbol("(") != nil {
            try enter()
            _ = advance()
            defer { depth -= 1 }
            let node = try disjunction()
            try expect(symbol: ")")
            return node
        }
        if isKeyword("TRUEPREDICATE") != nil { _ = advance(); return .constant(true) }
        if isKeyword("FALSEPREDICATE") != nil { _ = advance(); return .constant(false) }
        if let keyword = isKeyword("ANY", "SOME", "ALL", "NONE") {
            _ = advance()
            let quantifier: FormatQuantifier = switch keyword {
            case "ALL": .all
            case "NONE": .none
            default: .any
            }
            return try comparison(quantifier)
        }
        return try comparison(.any)
    }

    private mutating func comparison(_ quantifier: FormatQuantifier) throws(PredicateFormatError) -> FormatNode {
        try spend(1)
        let lhs = try operand()
        if let symbol = isSymbol("==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>") {
            _ = advance()
            let op: FormatComparison = switch symbol {
            case "==", "=": .equal
            case "!=", "<>": .notEqual
            case "<": .less
            case "<=", "=<": .lessOrEqual
            case ">": .greater
            default: .greaterOrEqual
            }
            return .comparison(quantifier, lhs, op, try operand())
        }
        if let keyword = isKeyword("BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES") {
            _ = advance()
            let op: FormatStringOperator = switch keyword {
            case "BEGINSWITH": .beginsWith
            case "ENDSWITH": .endsWith
            case "CONTAINS": .contains
            case "LIKE": .like
            default: .matches
            }
            let options = try stringOptions()
            if op == .contains, case .substitution("@") = current.kind, argumentIndex < arguments.count,
               Self.unwrap(arguments[argumentIndex]) is ManagedObject || Self.unwrap(arguments[argumentIndex]) is ManagedObjectID {
                // `relationship CONTAINS %@` with an object: ANY relationship == object.
                return .comparison(quantifier, lhs, .equal, .value(try value()))
            }
            let position = current.position
            let pattern = try stringValue()
            if op == .matches, FormatSemantics.regularExpression(
                FormatSemantics.matchPattern(pattern, options), caseInsensitive: options.contains(.caseInsensitive)) == nil {
                throw .invalidRegularExpression(position: position, pattern: pattern)
            }
            return .string(quantifier, lhs, op, options, pattern: pattern)
        }
        if isKeyword("IN") != nil {
            _ = advance()
            if case .word(let word) = current.kind, word.hasPrefix("#") || !Self.keywords.contains(word.uppercased()) {
                return .comparison(quantifier, try operand(), .equal, lhs) // `value IN relationship`: ANY relationship == value
            }
            if case .substitution("K") = current.kind { return .comparison(quantifier, try operand(), .equal, lhs) }
            return .among(quantifier, lhs, try valueList())
        }
        if isKeyword("BETWEEN") != nil {
            _ = advance()
            let position = current.position
            let bounds = try valueList()
            guard bounds.count == 2 else {
                throw .syntax(position: position, expected: "two bounds {low, high}", found: "\(bounds.count) values")
            }
            return .between(quantifier, lhs, bounds[0], bounds[1])
        }
        throw unexpected("a comparison operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, IN, BETWEEN)")
    }

    /// `[c]`, `[d]`, `[cd]` (or none).
    private mutating func stringOptions() throws(PredicateFormatError) -> FormatStringOptions {
        guard isSymbol("[") != nil else { return [] }
        _ = advance()
        guard case .word(let word) = current.kind, !word.isEmpty, word.lowercased().allSatisfy({ $0 == "c" || $0 == "d" }) else {
            throw unexpected("the options c, d or cd")
        }
        _ = advance()
        try expect(symbol: "]")
        var options: FormatStringOptions = []
        if word.lowercased().contains("c") { options.insert(.caseInsensitive) }
        if word.lowercased().contains("d") { options.insert(.diacriticInsensitive) }
        return options
    }

    // MARK: Operands

    private mutating func operand() throws(PredicateFormatError) -> FormatOperand {
        if isKeyword("SELF") != nil {
            _ = advance()
            return try keyPath(starting: [])
        }
        if isKeyword("SUBQUERY") != nil {
            return try subquery()
        }
        if case .word(let word) = current.kind, word.hasPrefix("$") {
            // The subquery's variable: the destination the predicate is read on.
            guard word == subqueryVariable else { throw unexpected(subqueryVariable.map { "the variable \($0)" } ?? "a key or a value (variables only in SUBQUERY)") }
            _ = advance()
            return try keyPath(starting: [])
        }
        if case .word(let word) = current.kind, word.hasPrefix("#") || !Self.keywords.contains(word.uppercased()) {
            _ = advance()
            return try keyPath(starting: [word.hasPrefix("#") ? String(word.dropFirst()) : word])
        }
        if case .substitution("K") = current.kind {
            let position = current.position
            let argument = try nextArgument(position: position)
            guard let key = argument as? String, !key.isEmpty else {
                throw .argumentType(position: position, expected: "a key path String", found: Self.typeName(argument))
            }
            _ = advance()
            return try keyPath(starting: key.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
        }
        return .value(try value())
    }

    /// `SUBQUERY(collection, $x, predicate).@count`, as Core Data's
    /// subquery expression: `collection` is a key path to a to-many
    /// relationship; inside `predicate`, `$x.key` (or `key`) is read on each
    /// destination and `$x` is the destination itself. Only the count of a
    /// subquery can be compared, as real predicates use it.
    private mutating func subquery() throws(PredicateFormatError) -> FormatOperand {
        guard subqueryVariable == nil else {
            throw .syntax(position: current.position, expected: "no SUBQUERY inside a SUBQUERY", found: "SUBQUERY")
        }
        _ = advance()
        try expect(symbol: "(")
        guard case .key(let collection) = try operand(), !collection.isEmpty else {
            throw .syntax(position: current.position, expected: "a key path to a to-many relationship as SUBQUERY's collection", found: current.display)
        }
        try expect(symbol: ",")
        guard case .word(let variable) = current.kind, variable.hasPrefix("$"), variable.count > 1 else { throw unexpected("a variable such as $x") }
        _ = advance()
        try expect(symbol: ",")
        subqueryVariable = variable
        let predicate = try disjunction()
        subqueryVariable = nil
        try expect(symbol: ")")
        guard isSymbol(".") != nil else { throw unexpected("'.@count' after SUBQUERY(…)") }
        _ = advance()
        guard isSymbol("@count") != nil else { throw unexpected("'@count' after SUBQUERY(…).") }
        _ = advance()
        return .subqueryCount(collection, predicate)
    }

    /// The rest of a key path: `.name` components and a final `.@count`.
    private mutating func keyPath(starting path: [String]) throws(PredicateFormatError) -> FormatOperand {
        var path = path
        while isSymbol(".") != nil {
            _ = advance()
            if isSymbol("@count") != nil {
                _ = advance()
                return .count(path)
            }
            guard case .word(let word) = current.kind else { throw unexpected("a key after '.'") }
            _ = advance()
            path.append(word.hasPrefix("#") ? String(word.dropFirst()) : word)
        }
        return .key(path)
    }

    /// A single constant: a literal or a `%@`, `%d`, `%f` substitution.
    private mutating func value() throws(PredicateFormatError) -> FormatValue {
        let token = current
        switch token.kind {
        case .integer(let value): _ = advance(); return .integer(value)
        case .double(let value): _ = advance(); return .double(value)
        case .string(let text): _ = advance(); return .string(text)
        case .symbol("-"):
            _ = advance()
            switch current.kind {
            case .integer(let value): _ = advance(); return .integer(-value)
            case .double(let value): _ = advance(); return .double(-value)
            default: throw unexpected("a number after '-'")
            }
        case .word(let word):
            switch word.uppercased() {
            case "NIL", "NULL": _ = advance(); return .null
            case "YES", "TRUE": _ = advance(); return .integer(1)
            case "NO", "FALSE": _ = advance(); return .integer(0)
            default: throw unexpected("a key or a value")
            }
        case .substitution(let letters):
            let argument = try nextArgument(position: token.position)
            _ = advance()
            return try Self.convert(argument, for: letters, position: token.position)
        default:
            throw unexpected("a key or a value")
        }
    }

    /// A string constant (the right side of a string operator).
    private mutating func stringValue() throws(PredicateFormatError) -> String {
        let position = current.position
        if case .substitution = current.kind {
            guard case .string(let text) = try value() else {
                throw .argumentType(position: position, expected: "a String", found: Self.typeName(arguments[argumentIndex - 1]))
            }
            return text
        }
        guard case .string(let text) = current.kind else { throw unexpected("a quoted string or %@") }
        _ = advance()
        return text
    }

    /// `{a, b, c}` or `%@` with an array.
    private mutating func valueList() throws(PredicateFormatError) -> [FormatValue] {
        if case .substitution("@") = current.kind {
            let position = current.position
            let argument = try nextArgument(position: position)
            _ = advance()
            guard let collection = Self.unwrap(argument) as? any Collection, !(Self.unwrap(argument) is String), !(Self.unwrap(argument) is Data) else {
                throw .argumentType(position: position, expected: "an array", found: Self.typeName(argument))
            }
            try spend(collection.count)
            var values: [FormatValue] = []
            for element in collection {
                values.append(try Self.convert(element, for: "@", position: position))
            }
            return values
        }
        try expect(symbol: "{")
        var values: [FormatValue] = []
        if isSymbol("}") == nil {
            values.append(try value())
            while isSymbol(",") != nil {
                _ = advance()
                try spend(1)
                values.append(try value())
            }
        }
        try expect(symbol: "}")
        return values
    }

    private mutating func nextArgument(position: Int) throws(PredicateFormatError) -> Any? {
        guard argumentIndex < arguments.count else { throw .missingArgument(position: position) }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }
}
