import Foundation

/// One token of a predicate format string, with its position (a character offset).
struct FormatToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A name or keyword (keywords are matched case-insensitively by the parser).
        case word(String)
        case integer(Int64)
        case double(Double)
        case string(String)
        /// `==`, `<=`, `(`, `{`, `.`, `@count`, `&&`, …
        case symbol(String)
        /// `%@`, `%K`, `%d`, `%i`, `%ld`, `%f`, `%lf`: the letters after `%`.
        case substitution(String)
        case end
    }

    let kind: Kind
    let position: Int

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .word(let word): "'\(word)'"
        case .integer(let value): "the number \(value)"
        case .double(let value): "the number \(value)"
        case .string: "a quoted string"
        case .symbol(let symbol): "'\(symbol)'"
        case .substitution(let letters): "'%\(letters)'"
        case .end: "the end of the format string"
        }
    }
}

/// Splits a format string into tokens.
struct FormatTokenizer {
    private let characters: [Character]
    private var index = 0

    init(_ format: String) {
        characters = Array(format)
    }

    static func tokens(_ format: String) throws(PredicateFormatError) -> [FormatToken] {
        var tokenizer = FormatTokenizer(format)
        var tokens: [FormatToken] = []
        while true {
            let token = try tokenizer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private static let twoCharacterSymbols: Set<String> = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"]
    private static let oneCharacterSymbols: Set<Character> = ["=", "<", ">", "!", "(", ")", "{", "}", "[", "]", ",", ".", "-"]

    private mutating func next() throws(PredicateFormatError) -> FormatToken {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        let start = index
        guard index < characters.count else { return FormatToken(kind: .end, position: start) }
        let character = characters[index]
        if character == "\"" || character == "'" {
            return FormatToken(kind: .string(try quoted(character)), position: start)
        }
        if character.isASCII, character.isNumber {
            return FormatToken(kind: try number(), position: start)
        }
        if character.isLetter || character == "_" || character == "$" || character == "#" {
            if character == "#" { index += 1 } // `#name`: a key named like a keyword
            let wordStart = index
            while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" || characters[index] == "$" {
                index += 1
            }
            guard index > wordStart else { throw .syntax(position: start, expected: "a key after '#'", found: display(at: index)) }
            return FormatToken(kind: .word((character == "#" ? "#" : "") + String(characters[wordStart..<index])), position: start)
        }
        if character == "@" {
            index += 1
            let wordStart = index
            while index < characters.count, characters[index].isLetter { index += 1 }
            let word = String(characters[wordStart..<index])
            guard word.lowercased() == "count" else {
                throw .syntax(position: start, expected: "@count", found: "'@\(word)'")
            }
            return FormatToken(kind: .symbol("@count"), position: start)
        }
        if character == "%" {
            index += 1
            for letters in ["@", "K", "d", "i", "ld", "lld", "li", "f", "lf"] where matches(letters) {
                index += letters.count
                return FormatToken(kind: .substitution(letters), position: start)
            }
            throw .syntax(position: start, expected: "a substitution (%@, %K, %d, %i, %ld, %f, %lf)", found: display(at: start))
        }
        if index + 1 < characters.count, Self.twoCharacterSymbols.contains(String(characters[index...index + 1])) {
            index += 2
            return FormatToken(kind: .symbol(String(characters[start..<index])), position: start)
        }
        if Self.oneCharacterSymbols.contains(character) {
            index += 1
            return FormatToken(kind: .symbol(String(character)), position: start)
        }
        throw .syntax(position: start, expected: "a key, a value or an operator", found: display(at: start))
    }

    private func matches(_ letters: String) -> Bool {
        let candidate = characters[index...].prefix(letters.count)
        return String(candidate) == letters
    }

    private func display(at position: Int) -> String {
        position < characters.count ? "'\(characters[position])'" : "the end of the format string"
    }

    /// A quoted string, with backslash escapes (`\n`, `\t`, `\r`, `\0`; any
    /// other escaped character stands for itself).
    private mutating func quoted(_ quote: Character) throws(PredicateFormatError) -> String {
        let start = index
        index += 1
        var text = ""
        while index < characters.count {
            let character = characters[index]
            index += 1
            if character == quote { return text }
            if character == "\\" {
                guard index < characters.count else { break }
                let escaped = characters[index]
                index += 1
                switch escaped {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "0": text.append("\0")
                default: text.append(escaped)
                }
            } else {
                text.append(character)
            }
        }
        throw .syntax(position: start, expected: "a closing \(quote)", found: "the end of the format string")
    }

    /// An integer or a decimal number (with an optional exponent).
    private mutating func number() throws(PredicateFormatError) -> FormatToken.Kind {
        let start = index
        func digits() { while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 } }
        digits()
        var isDouble = false
        if index + 1 < characters.count, characters[index] == ".", characters[index + 1].isASCII, characters[index + 1].isNumber {
            isDouble = true
            index += 1
            digits()
        }
        if index < characters.count, characters[index] == "e" || characters[index] == "E" {
            var next = index + 1
            if next < characters.count, characters[next] == "+" || characters[next] == "-" { next += 1 }
            if next < characters.count, characters[next].isASCII, characters[next].isNumber {
                isDouble = true
                index = next
                digits()
            }
        }
        let text = String(characters[start..<index])
        if !isDouble, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else {
            throw .syntax(position: start, expected: "a number in range", found: "'\(text)'")
        }
        return .double(double)
    }
}
