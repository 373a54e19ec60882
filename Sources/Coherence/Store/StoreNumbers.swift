/// Process-wide numbers for store identifiers, so that an object ID holds a
/// 4-byte number instead of its store's identifier string.
///
/// An ID is copied into every snapshot value that refers to an object, into
/// both of a context's and the coordinator's hash tables, and hashed and
/// compared on every lookup; with the string inside, an ID took 32 bytes and
/// every copy a reference count. Numbers are handed out in order, from 1 (0
/// stands for a temporary ID), and never reused: the table holds one entry
/// per store identifier the process has seen.
///
/// **Complexity:** O(1) per lookup, under a lock. The per-row paths compare
/// numbers (``PersistentStore`` implementations in this package keep their
/// own) instead of looking identifiers up; finding the store of an ID
/// (once per store query, not per row) goes through the identifier.
enum StoreNumbers {
    private struct Table {
        var numbers: [String: UInt32] = [:]
        var identifiers: [String] = []
    }

    private static let table = Locked(Table())

    /// The number of `identifier`, assigned on first use.
    static func number(for identifier: String) -> UInt32 {
        table.withLock { table in
            if let number = table.numbers[identifier] { return number }
            table.identifiers.append(identifier)
            let number = UInt32(table.identifiers.count)
            table.numbers[identifier] = number
            return number
        }
    }

    /// The identifier numbered `number` (never 0).
    static func identifier(for number: UInt32) -> String {
        table.withLock { $0.identifiers[Int(number) - 1] }
    }
}
