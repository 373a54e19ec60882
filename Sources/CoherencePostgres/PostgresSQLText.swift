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
        // Works on the UTF-8 bytes (a multi-row insert's text runs to
        // hundreds of kilobytes): every character looked for is ASCII, and
        // an ASCII byte never occurs inside a multi-byte UTF-8 sequence.
        var result: [UInt8] = []
        result.reserveCapacity(sql.utf8.count + sql.utf8.count / 2 + 16)
        var count = 0
        var state = State.code
        var previous = UInt8(ascii: " ")
        for byte in sql.utf8 {
            switch state {
            case .code:
                switch byte {
                case UInt8(ascii: "?"):
                    count += 1
                    result.append(UInt8(ascii: "$"))
                    appendDecimal(count, to: &result)
                    previous = UInt8(ascii: " ")
                    continue
                case UInt8(ascii: "'"): state = .string
                case UInt8(ascii: "\""): state = .identifier
                case UInt8(ascii: "-") where previous == UInt8(ascii: "-"): state = .lineComment
                case UInt8(ascii: "*") where previous == UInt8(ascii: "/"): state = .blockComment
                default: break
                }
            case .string:
                // A doubled '' closes and reopens the literal, which is the same.
                if byte == UInt8(ascii: "'") { state = .code }
            case .identifier:
                if byte == UInt8(ascii: "\"") { state = .code }
            case .lineComment:
                if byte == UInt8(ascii: "\n") { state = .code }
            case .blockComment:
                if byte == UInt8(ascii: "/"), previous == UInt8(ascii: "*") {
                    state = .code
                    result.append(byte)
                    previous = UInt8(ascii: " ")
                    continue
                }
            }
            result.append(byte)
            previous = byte
        }
        return (String(decoding: result, as: UTF8.self), count)
    }

    private enum State {
        case code, string, identifier, lineComment, blockComment
    }

    /// Appends the decimal digits of `number` (at least 1), without making a
    /// string for them.
    private static func appendDecimal(_ number: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        while divisor <= number / 10 { divisor *= 10 }
        var rest = number
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
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
