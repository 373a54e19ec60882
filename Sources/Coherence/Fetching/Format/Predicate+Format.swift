import Foundation

extension Predicate {
    /// A predicate parsed from Core Data's predicate format syntax, for
    /// queries built at run time (search fields, query parameters, ported
    /// `NSPredicate` code):
    ///
    /// ```swift
    /// request.predicate = try Predicate<Car>(format: "name BEGINSWITH[c] %@ AND doors >= %d", "Por", 2)
    /// ```
    ///
    /// The result is an ordinary `Predicate`, usable wherever `#Predicate`
    /// is: fetch requests, counts, fetched results controllers, batch
    /// requests, `evaluate(_:)`. The SQLite store translates it to SQL with
    /// every value bound as a parameter; in memory it is evaluated with the
    /// same semantics (strings compared by their UTF-8 bytes, as the store's
    /// columns compare them; numbers by value across integers and doubles;
    /// every comparison with `nil` other than `==`/`!=` false).
    ///
    /// Supported: `==` `=` `!=` `<>` `<` `<=` `=<` `>` `>=` `=>`; `AND` `OR`
    /// `NOT` (`&&` `||` `!`) and parentheses; `BEGINSWITH`, `ENDSWITH`,
    /// `CONTAINS`, `LIKE` (`?` and `*`), `MATCHES` (a regular expression
    /// matching the whole string) with `[c]`, `[d]`, `[cd]`; `IN {…}` or
    /// `IN %@` (an array); `BETWEEN {low, high}`; `nil`/`NULL`,
    /// `YES`/`NO`/`TRUE`/`FALSE`, `TRUEPREDICATE`/`FALSEPREDICATE`, numbers,
    /// single- or double-quoted strings with backslash escapes; key paths
    /// through to-one relationships (`server.name`); `ANY`/`SOME`, `ALL`,
    /// `NONE` on to-many key paths (`ANY items.title CONTAINS "x"`; a to-many
    /// key path without a quantifier means `ANY`) and `@count`
    /// (`items.@count > 2`); `SELF`, the object itself (`SELF == %@`,
    /// `SELF IN %@` with objects or IDs, `SELF.name`);
    /// `SUBQUERY(items, $x, $x.read == NO).@count` over a to-many key path
    /// (through to-one relationships before it), whose predicate reads
    /// `$x.key` or a bare `key` on each destination; substitutions `%@` (a value or, after `IN` and
    /// `BETWEEN`, an array), `%K` (a key path), `%d` `%i` `%ld` (an
    /// integer), `%f` `%lf` (a floating-point number). Keywords are
    /// case-insensitive; `#name` is a key named like a keyword. A
    /// relationship compares with `nil` or an object (`%@` with a managed
    /// object or its ID): `dealership == %@`, `dealership IN %@`,
    /// `accessories CONTAINS %@`, `%@ IN accessories`,
    /// `NONE accessories == %@`.
    ///
    /// Syntax and arguments are checked here and, as Core Data's
    /// `NSPredicate(format:)` raises for a malformed format, a bad format
    /// stops the program with the format string and the position of the
    /// error (in release builds too); ``init(validatingFormat:_:)`` throws
    /// instead, for formats that come from users. Keys are checked against
    /// the entity when the predicate is used (the model is the container's,
    /// not known to the type): a fetch throws ``PredicateFormatError/unknownKey(entity:key:)``
    /// for a key the entity does not have.
    ///
    /// The name does not clash with Foundation's `NSPredicate(format:)`:
    /// this is an initializer of Swift's `Predicate`, which has none. Swift
    /// 6.3 cannot constrain `Predicate`'s parameter pack to one
    /// `ManagedObject` type in an extension ("same-element requirements are
    /// not yet supported"), so the input type is checked when the
    /// initializer runs.
    ///
    /// - Parameters:
    ///   - format: the predicate format string.
    ///   - arguments: one argument per substitution, in order.
    /// - Precondition: the format is well formed, with one argument of the
    ///   right type per substitution; the predicate has one input, a
    ///   ``ManagedObject`` subclass or, for a request for other results, its
    ///   result type (`Predicate<FetchRequestResult>`, `Predicate<NSDictionary>`):
    ///   such a predicate is read on the entity's objects by the fetch.
    /// <https://developer.apple.com/library/mac/documentation/Cocoa/Conceptual/Predicates/Articles/pSyntax.html>
    public init(format: String, _ arguments: Any?...) {
        self.init(format: format, argumentArray: arguments)
    }

    /// A predicate parsed from Core Data's predicate format syntax, with the
    /// substitution arguments in an array (Core Data's
    /// `NSPredicate(format:argumentArray:)`,
    /// <https://developer.apple.com/documentation/foundation/nspredicate/init(format:argumentarray:)>).
    /// See ``init(format:_:)``.
    public init(format: String, argumentArray arguments: [Any?]) {
        do {
            try self.init(validatingFormat: format, argumentArray: arguments)
        } catch {
            fatalError("Coherence: the predicate format \"\(format)\" is invalid: \(error)")
        }
    }

    /// A predicate that always (`true`) or never (`false`) matches, as Core
    /// Data's `NSPredicate(value:)`.
    /// <https://developer.apple.com/documentation/foundation/nspredicate/init(value:)>
    public init(value: Bool) {
        self.init(format: value ? "TRUEPREDICATE" : "FALSEPREDICATE")
    }

    /// ``init(format:_:)`` for formats that may be malformed (typed by a
    /// user, read from a query string): a bad format throws instead of
    /// stopping the program.
    /// - Throws: ``PredicateFormatError`` with the character offset of a
    ///   syntax error, a missing or extra argument, or an argument of the
    ///   wrong type.
    public init(validatingFormat format: String, _ arguments: Any?...) throws(PredicateFormatError) {
        try self.init(validatingFormat: format, argumentArray: arguments)
    }

    /// ``init(validatingFormat:_:)`` with the substitution arguments in an array.
    /// - Throws: ``PredicateFormatError``, as ``init(validatingFormat:_:)``.
    public init(validatingFormat format: String, argumentArray arguments: [Any?]) throws(PredicateFormatError) {
        var inputs = 0
        var allResults = true
        for type in repeat (each Input).self {
            inputs += 1
            if !(type is any FetchRequestResult.Type) && type != (any FetchRequestResult).self { allResults = false }
        }
        if inputs != 1 || !allResults { // fatalError: the message prints in release builds too
            fatalError("Coherence: Predicate(format:) makes predicates over one ManagedObject subclass (or a fetch request's "
                       + "result type, such as FetchRequestResult or NSDictionary), not \((repeat (each Input).self))")
        }
        var parser = try FormatParser(format: format, arguments: arguments)
        let node = try parser.parse()
        self.init { (variables: repeat PredicateExpressions.Variable<each Input>) in
            var expression: (any StandardPredicateExpression<Bool>)?
            for variable in repeat each variables {
                expression = FormatPredicateExpression(variable: variable, node: node)
            }
            return expression!
        }
    }
}
