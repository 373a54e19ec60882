import Foundation

/// Rewrites of the SQL the shared SQL engine writes (`?` parameters) into
/// what PostgreSQL runs (`$1`, `$2`, …).
package enum PostgresSQLText {
    /// `sql` with each `?` parameter replaced by `$1`, `$2`, … in order, and
    /// the number of parameters. A `?` inside a single-quoted string literal
    /// (`'it''s?'`), a double-quoted identifier (`"why?"`), a `--` comment or a
    /// `/* */` comment is left alone. (Coherence's SQL uses neither
    /// `E'…'` escape strings nor dollar quoting.)
    package static func numberingParameters(_ sql: String) -> (sql: String, count: Int) {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        var state = State.code
        var previous: Character = " "
        for character in sql {
            switch state {
            case .code:
                switch character {
                case "?":
                    count += 1
                    result += "$\(count)"
                    previous = " "
                    continue
                case "'": state = .string
                case "\"": state = .identifier
                case "-" where previous == "-": state = .lineComment
                case "*" where previous == "/": state = .blockComment
                default: break
                }
            case .string:
                // A doubled '' closes and reopens the literal, which is the same.
                if character == "'" { state = .code }
            case .identifier:
                if character == "\"" { state = .code }
            case .lineComment:
                if character == "\n" { state = .code }
            case .blockComment:
                if character == "/", previous == "*" {
                    state = .code
                    result.append(character)
                    previous = " "
                    continue
                }
            }
            result.append(character)
            previous = character
        }
        return (result, count)
    }

    private enum State {
        case code, string, identifier, lineComment, blockComment
    }

    /// The parts of a single-row `INSERT INTO t (a, b) VALUES (?, ?)`
    /// statement: the text before the values and the row's `(…)`; `nil` for
    /// any other statement (several rows, `SELECT`, `ON CONFLICT`, …).
    package static func singleRowInsert(_ sql: String) -> (head: String, row: String)? {
        let trimmed = sql.trimmingTrailing(while: { $0 == ";" || $0.isWhitespace })
        guard trimmed.prefix(12).uppercased() == "INSERT INTO ", trimmed.hasSuffix(")"),
              let values = trimmed.range(of: "VALUES", options: [.caseInsensitive, .backwards]),
              values.lowerBound > trimmed.startIndex,
              " \n\t)".contains(trimmed[trimmed.index(before: values.lowerBound)])
        else { return nil }
        let row = trimmed[values.upperBound...].drop(while: \.isWhitespace)
        // One parenthesized row of parameters and constants: no nested
        // parentheses, quotes or further rows.
        guard row.first == "(", row.dropFirst().dropLast().allSatisfy({ !"()'\"".contains($0) }) else {
            return nil
        }
        let head = trimmed[..<values.lowerBound].trimmingTrailing(while: \.isWhitespace)
        return (head + " VALUES ", String(row))
    }
}

extension StringProtocol {
    fileprivate func trimmingTrailing(while predicate: (Character) -> Bool) -> SubSequence {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[..<end]
    }
}
