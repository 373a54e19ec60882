import Foundation
internal import GRDB

/// SQL functions the SQLite store registers on every connection.
enum SQLiteFunctions {
    /// `coherence_localized_standard_contains(text, part)`: Foundation's
    /// `localizedStandardContains`, for predicates.
    static let localizedStandardContains = DatabaseFunction(
        "coherence_localized_standard_contains", argumentCount: 2, pure: true
    ) { values in
        guard let text = String.fromDatabaseValue(values[0]), let part = String.fromDatabaseValue(values[1]) else { return nil }
        return text.localizedStandardContains(part)
    }

    /// `coherence_case_folded(text)`: ``Swift/String/caseFolded``.
    static let caseFolded = DatabaseFunction("coherence_case_folded", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0])?.caseFolded
    }

    /// `coherence_reversed_text(text)`: ``Swift/String/reversedText``.
    static let reversedText = DatabaseFunction("coherence_reversed_text", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0])?.reversedText
    }

    /// `coherence_format_match(code, text, pattern)`: the string operators
    /// of format predicates (`code` is the operator's raw value times 4 plus
    /// the `[c]`/`[d]` options), running the same Swift code as the
    /// in-memory evaluation. 0 for anything but text.
    static let formatMatch = DatabaseFunction("coherence_format_match", argumentCount: 3, pure: true) { values in
        guard case .string(let text) = values[1].storage, case .string(let pattern) = values[2].storage,
              let code = Int.fromDatabaseValue(values[0]), let op = FormatStringOperator(rawValue: code / 4) else { return false }
        return FormatSemantics.matches(text, op, FormatStringOptions(rawValue: code % 4), pattern: pattern)
    }

    static func register(in db: Database) {
        db.add(function: formatMatch)
        db.add(function: localizedStandardContains)
        db.add(function: caseFolded)
        db.add(function: reversedText)
    }
}
