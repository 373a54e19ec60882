/// A value compared as SQL's default `BINARY` collation compares it, for
/// grouping and distinct rows: strings by their exact UTF-8 bytes (a
/// composed and a decomposed "é" are two groups, though Swift's `==` finds
/// them equal). The store's uniqueness check and the in-memory aggregates
/// use it, so that both agree with SQLite's unique indexes and `GROUP BY`.
struct ExactValue: Hashable {
    private let value: StoreValue
    private let bytes: [UInt8]?

    init(_ value: StoreValue) {
        if case .string(let string) = value {
            self.value = .null
            bytes = Array(string.utf8)
        } else {
            self.value = value
            bytes = nil
        }
    }
}
