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

    static func register(in db: Database) {
        db.add(function: localizedStandardContains)
        db.add(function: caseFolded)
        db.add(function: reversedText)
    }
}
