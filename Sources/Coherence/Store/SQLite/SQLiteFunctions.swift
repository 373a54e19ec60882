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

    static func register(in db: Database) {
        db.add(function: localizedStandardContains)
    }
}
