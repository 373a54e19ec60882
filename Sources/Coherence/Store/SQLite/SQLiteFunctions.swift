import Foundation
internal import GRDB
internal import GRDBSQLite

/// SQL functions the SQLite store registers on every connection, each
/// running the Swift code the in-memory evaluation runs, so that both give
/// the same answer.
///
/// They are registered through SQLite's C API and read text with its length
/// (`sqlite3_value_bytes`), not as a C string: text holding NUL characters
/// is compared whole, as the store saves it (GRDB's function arguments stop
/// at the first NUL).
enum SQLiteFunctions {
    /// A function's SQL name and SQLite callback.
    struct Function: Sendable {
        let name: String
        let argumentCount: Int32
        let body: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void
    }

    /// `coherence_localized_standard_contains(text, part)`: Foundation's
    /// `localizedStandardContains`, for predicates; NULL unless both are text.
    static let localizedStandardContains = Function(name: "coherence_localized_standard_contains", argumentCount: 2) { context, _, values in
        guard let text = textArgument(values?[0]), let part = textArgument(values?[1]) else { return sqlite3_result_null(context) }
        sqlite3_result_int(context, text.localizedStandardContains(part) ? 1 : 0)
    }

    /// `coherence_case_folded(text)`: ``Swift/String/caseFolded``; NULL for
    /// anything but text.
    static let caseFolded = Function(name: "coherence_case_folded", argumentCount: 1) { context, _, values in
        guard let text = textArgument(values?[0]) else { return sqlite3_result_null(context) }
        result(text.caseFolded, in: context)
    }

    /// `coherence_reversed_text(text)`: ``Swift/String/reversedText``; NULL
    /// for anything but text.
    static let reversedText = Function(name: "coherence_reversed_text", argumentCount: 1) { context, _, values in
        guard let text = textArgument(values?[0]) else { return sqlite3_result_null(context) }
        result(text.reversedText, in: context)
    }

    /// `coherence_format_match(code, text, pattern)`: the string operators
    /// of format predicates (`code` is the operator's raw value times 4 plus
    /// the `[c]`/`[d]` options). 0 for anything but text.
    static let formatMatch = Function(name: "coherence_format_match", argumentCount: 3) { context, _, values in
        let code = Int(sqlite3_value_int64(values?[0]))
        guard let text = textArgument(values?[1]), let pattern = textArgument(values?[2]), let op = FormatStringOperator(rawValue: code / 4) else {
            return sqlite3_result_int(context, 0)
        }
        sqlite3_result_int(context, FormatSemantics.matches(text, op, FormatStringOptions(rawValue: code % 4), pattern: pattern) ? 1 : 0)
    }

    static func register(in db: Database) {
        for function in [formatMatch, localizedStandardContains, caseFolded, reversedText] {
            let code = sqlite3_create_function_v2(db.sqliteConnection, function.name, function.argumentCount,
                                                  SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, function.body, nil, nil, nil)
            require(code == SQLITE_OK, "Coherence: SQLite refused the function \(function.name) (code \(code))")
        }
    }

    /// A text argument, whole (NUL characters included); `nil` for other
    /// storage classes.
    private static func textArgument(_ value: OpaquePointer?) -> String? {
        guard sqlite3_value_type(value) == SQLITE_TEXT else { return nil }
        guard let bytes = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value)) // after sqlite3_value_text, as SQLite asks
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Returns `text` as the function's result, with its length.
    private static func result(_ text: String, in context: OpaquePointer?) {
        var text = text
        text.withUTF8 { bytes in
            let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
            guard let start = bytes.baseAddress else { return sqlite3_result_text(context, "", 0, transient) }
            start.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                sqlite3_result_text(context, chars, Int32(bytes.count), transient)
            }
        }
    }
}
