import Foundation

// `#Predicate` on Linux has no `hasPrefix`, `hasSuffix` or case-insensitive
// string functions, but it accepts key paths to computed properties. These
// two compose with `starts(with:)` and `contains(_:)` into every form, and the
// SQLite store runs them as SQL functions with the same Swift code:
//
//     $0.title.starts(with: "Swift")                                  hasPrefix
//     $0.title.reversedText.starts(with: "6 tfiwS".reversedText)      hasSuffix
//     $0.title.caseFolded.starts(with: "swift")                       hasPrefix, case-insensitive
//     $0.title.caseFolded.reversedText.starts(with: "6 tfiws")        hasSuffix, case-insensitive
//     $0.title.caseFolded.contains("swift")                           contains, case-insensitive
//
// (`localizedStandardContains(_:)` is case- and diacritic-insensitive too.)

extension String {
    /// The text in lower case, for case-insensitive matching in predicates:
    /// compare it with a lower-case pattern.
    public var caseFolded: String { lowercased() }

    /// The text reversed, for suffix tests in predicates:
    /// `$0.name.reversedText.starts(with: suffix.reversedText)`.
    public var reversedText: String { String(reversed()) }
}
