import Foundation

/// The comparisons and string tests of format predicates, as the SQLite store
/// performs them: the in-memory evaluation calls these, and the SQL
/// function the store registers for string tests calls the same code, so
/// both give the same answer.
enum FormatSemantics {
    /// SQLite's order of two non-NULL values: by storage class first
    /// (numbers, text, blobs), numbers by value, text and blobs by their
    /// bytes (the store's columns use the BINARY collation). `nil` when
    /// either is NULL.
    static func order(_ lhs: FormatValue, _ rhs: FormatValue) -> ComparisonResult? {
        if lhs == .null || rhs == .null { return nil }
        if case .objectID(let a) = lhs, case .objectID(let b) = rhs { return a == b ? .orderedSame : nil }
        if lhs.classRank == 4 || rhs.classRank == 4 { return nil }
        if lhs.classRank != rhs.classRank { return lhs.classRank < rhs.classRank ? .orderedAscending : .orderedDescending }
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        case (.string(let a), .string(let b)): return bytes(Array(a.utf8), Array(b.utf8))
        case (.blob(let a), .blob(let b)): return bytes(Array(a), Array(b))
        case (.integer(let a), .double(let b)): return exactOrder(a, b)
        case (.double(let a), .integer(let b)): return exactOrder(b, a).map(Self.reversed)
        default:
            let a = number(lhs), b = number(rhs)
            if a.isNaN || b.isNaN { return nil }
            return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        }
    }

    /// An integer and a double in mathematical order, as SQLite compares
    /// them: exactly, even beyond 2^53 where converting the integer to a
    /// double would round it. `nil` for a NaN.
    static func exactOrder(_ integer: Int64, _ double: Double) -> ComparisonResult? {
        if double.isNaN { return nil }
        if double >= 9_223_372_036_854_775_808.0 { return .orderedAscending } // 2^63: above every Int64
        if double < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let whole = double.rounded(.down)
        let wholeInteger = Int64(whole) // exact: |whole| < 2^63, or exactly -2^63
        if integer != wholeInteger { return integer < wholeInteger ? .orderedAscending : .orderedDescending }
        return whole == double ? .orderedSame : .orderedAscending // the double has a fraction above `whole`
    }

    private static func reversed(_ order: ComparisonResult) -> ComparisonResult {
        switch order {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }

    /// `lhs op rhs` with SQL's `IS`/`IS NOT` for equality (NULL equals NULL)
    /// and false for any ordering with NULL.
    static func compare(_ lhs: FormatValue, _ op: FormatComparison, _ rhs: FormatValue) -> Bool {
        switch op {
        case .equal: return lhs == .null || rhs == .null ? lhs == rhs : order(lhs, rhs) == .orderedSame
        // (an object never equals a value: `order` gives nil for the pair)
        case .notEqual: return !compare(lhs, .equal, rhs)
        case .less: return order(lhs, rhs) == .orderedAscending
        case .lessOrEqual: return order(lhs, rhs).map { $0 != .orderedDescending } ?? false
        case .greater: return order(lhs, rhs) == .orderedDescending
        case .greaterOrEqual: return order(lhs, rhs).map { $0 != .orderedAscending } ?? false
        }
    }

    private static func number(_ value: FormatValue) -> Double {
        switch value {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: .nan
        }
    }

    private static func bytes(_ a: [UInt8], _ b: [UInt8]) -> ComparisonResult {
        for (x, y) in zip(a, b) where x != y { return x < y ? .orderedAscending : .orderedDescending }
        return a.count == b.count ? .orderedSame : (a.count < b.count ? .orderedAscending : .orderedDescending)
    }

    // MARK: Strings

    /// The string operators. Text that is not a string (NULL, a number)
    /// matches nothing.
    static func matches(_ text: FormatValue, _ op: FormatStringOperator, _ options: FormatStringOptions, pattern: String) -> Bool {
        guard case .string(let text) = text else { return false }
        return matches(text, op, options, pattern: pattern)
    }

    /// A MATCHES pattern as the expression is built from it: diacritics
    /// removed for `[d]`, case left to the expression's own option.
    static func matchPattern(_ pattern: String, _ options: FormatStringOptions) -> String {
        fold(pattern, options.subtracting(.caseInsensitive))
    }

    static func matches(_ text: String, _ op: FormatStringOperator, _ options: FormatStringOptions, pattern: String) -> Bool {
        let text = fold(text, options), folded = fold(pattern, options)
        switch op {
        case .beginsWith: return text.hasPrefix(folded)
        case .endsWith: return text.hasSuffix(folded)
        case .contains: return folded.isEmpty || text.contains(folded)
        case .like: return like(Array(text), Array(folded))
        case .matches:
            // The pattern is not case-folded (that would turn `\W` into
            // `\w`): the expression ignores case itself.
            guard let regex = regularExpression(matchPattern(pattern, options), caseInsensitive: options.contains(.caseInsensitive))
            else { return false }
            let range = NSRange(text.startIndex..., in: text)
            return regex.firstMatch(in: text, options: [], range: range) != nil
        }
    }

    /// The text under `[c]` (``Swift/String/caseFolded``, as `#Predicate`'s
    /// case-insensitive forms) and `[d]` (combining marks removed after
    /// canonical decomposition: "Citroën" matches "Citroen").
    static func fold(_ text: String, _ options: FormatStringOptions) -> String {
        var text = text
        if options.contains(.diacriticInsensitive) {
            var scalars = String.UnicodeScalarView()
            for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars
            where scalar.properties.generalCategory != .nonspacingMark {
                scalars.append(scalar)
            }
            text = String(scalars)
        }
        if options.contains(.caseInsensitive) { text = text.caseFolded }
        return text
    }

    /// `MATCHES`: the whole string must match (Core Data's MATCHES is a
    /// whole-string match), so the pattern is anchored at both ends.
    /// Compiled once per pattern and options (the store calls this for
    /// every row); the last few are kept.
    static func regularExpression(_ pattern: String, caseInsensitive: Bool) -> NSRegularExpression? {
        let key = RegexKey(pattern: pattern, caseInsensitive: caseInsensitive)
        if let cached = regexCache.withLock({ $0[key] }) { return cached.regex }
        let regex = try? NSRegularExpression(pattern: "\\A(?:\(pattern))\\z", options: caseInsensitive ? [.caseInsensitive] : [])
        regexCache.withLock { cache in
            if cache.count >= 32 { cache.removeAll() }
            cache[key] = CachedRegex(regex: regex)
        }
        return regex
    }

    private struct RegexKey: Hashable {
        let pattern: String
        let caseInsensitive: Bool
    }

    /// `NSRegularExpression` is immutable and documented as thread-safe.
    private struct CachedRegex: @unchecked Sendable {
        let regex: NSRegularExpression?
    }

    private static let regexCache = Locked<[RegexKey: CachedRegex]>([:])

    /// `LIKE`: `?` matches one character, `*` any number of them, and a
    /// backslash makes the character after it literal (`a\*` matches "a*").
    static func like(_ text: [Character], _ pattern: [Character]) -> Bool {
        // The pattern as (character, is a wildcard) pairs, escapes resolved.
        var tokens: [(character: Character, wildcard: Bool)] = []
        var index = 0
        while index < pattern.count {
            if pattern[index] == "\\", index + 1 < pattern.count {
                tokens.append((pattern[index + 1], false))
                index += 2
            } else {
                tokens.append((pattern[index], pattern[index] == "?" || pattern[index] == "*"))
                index += 1
            }
        }
        return like(text, tokens)
    }

    private static func like(_ text: [Character], _ pattern: [(character: Character, wildcard: Bool)]) -> Bool {
        func isStar(_ p: Int) -> Bool { pattern[p].wildcard && pattern[p].character == "*" }
        func matchesOne(_ p: Int, _ character: Character) -> Bool {
            pattern[p].wildcard ? pattern[p].character == "?" : pattern[p].character == character
        }
        var t = 0, p = 0
        var star: Int?, resume = 0
        while t < text.count {
            if p < pattern.count, !isStar(p), matchesOne(p, text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count, isStar(p) {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, isStar(p) { p += 1 }
        return p == pattern.count
    }
}
