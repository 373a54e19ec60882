import Foundation

/// One sort descriptor's value for one object, comparable across snapshots:
/// a fetched results controller keeps each object's key to find where it
/// was after its values changed.
enum SortValue: Hashable {
    case none
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case other(String)

    init(_ value: Any) {
        switch value {
        case let value as Bool: self = .bool(value)
        case let value as any BinaryInteger: self = .integer(Int64(clamping: value))
        case let value as Double: self = .double(value)
        case let value as Float: self = .double(Double(value))
        case let value as String: self = .string(value)
        case let value as Date: self = .date(value)
        case let value as Decimal: self = .double(NSDecimalNumber(decimal: value).doubleValue)
        case let value as UUID: self = .string(value.uuidString)
        case let value as URL: self = .string(value.absoluteString)
        case let value as KeyedSortValue: self = value.value
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                self = mirror.children.first.map { SortValue($0.value) } ?? .none
            } else if let raw = value as? any RawRepresentable {
                self = SortValue(raw.rawValue)
            } else {
                self = .other(String(describing: value))
            }
        }
    }

    /// Whether attributes of `type` sort by their store form, as
    /// `init(storeValue:)` reads it; binary data and `Codable` values sort by
    /// more than it.
    static func sortsByStoreValue(_ type: AttributeType) -> Bool {
        type != .binaryData && type != .codable
    }

    /// The sort value of an attribute's value in store form (of a type that
    /// ``sortsByStoreValue(_:)``): what `init(_:)` makes of the Swift value.
    init?(storeValue: StoreValue) {
        switch storeValue {
        case .null: self = .none
        case .bool(let value): self = .bool(value)
        case .integer(let value): self = .integer(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .date(let value): self = .date(value)
        case .uuid(let value): self = .string(value.uuidString)
        case .url(let value): self = .string(value.absoluteString)
        case .decimal(let value): self = .double(NSDecimalNumber(decimal: value).doubleValue)
        case .data, .objectID, .objectIDs, .orderedObjectIDs, .toManyFault: return nil
        }
    }

    /// Ascending order; `nil` first, as `SortDescriptor` orders optionals.
    static func compare(_ lhs: SortValue, _ rhs: SortValue, strings: String.StandardComparator?) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.none, .none): return .orderedSame
        case (.none, _): return .orderedAscending
        case (_, .none): return .orderedDescending
        case (.bool(let a), .bool(let b)): return a == b ? .orderedSame : (!a ? .orderedAscending : .orderedDescending)
        case (.integer(let a), .integer(let b)): return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        case (.double(let a), .double(let b)): return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        case (.integer(let a), .double(let b)): return compare(.double(Double(a)), .double(b), strings: strings)
        case (.double(let a), .integer(let b)): return compare(.double(a), .double(Double(b)), strings: strings)
        case (.string(let a), .string(let b)):
            if let strings { return strings.compare(a, b) }
            return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        case (.date(let a), .date(let b)): return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        case (.other(let a), .other(let b)): return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        default: return "\(lhs)" < "\(rhs)" ? .orderedAscending : .orderedDescending
        }
    }
}

/// One sort descriptor's rule, without its key path: its direction and how
/// it compares strings.
struct SortRule {
    let reverse: Bool
    let strings: String.StandardComparator?

    init<Compared>(_ descriptor: SortDescriptor<Compared>) {
        reverse = descriptor.order == .reverse
        // A by-name descriptor compares strings as a typed one does by default.
        let byName = descriptor.keyPath.map { type(of: $0).valueType == KeyedSortValue.self } ?? false
        strings = byName ? KeyedSortValue.strings : descriptor.stringComparator
    }
}

/// An object's position key in a fetched results controller: its section
/// (name, and the value that orders sections), its sort values, and its ID
/// as the final tie-break.
struct SortKey: Equatable {
    /// The section's name; objects with equal names share a section.
    var section: String
    /// The value the section name was made from, which orders sections (a
    /// number section orders 2 before 10).
    var sectionValue: SortValue
    var values: [SortValue]
    /// Permanent IDs first, then by primary key (temporary: by number).
    var temporary: Int
    var key: Int64

    /// Orders keys by section, then the sort descriptors, then the
    /// tie-break. Sections follow the first sort descriptor, which Core Data
    /// requires to order them: its direction and its string comparison.
    static func isLess(_ lhs: SortKey, _ rhs: SortKey, by rules: [SortRule], sectionsDescending: Bool) -> Bool {
        if lhs.section != rhs.section {
            var order = SortValue.compare(lhs.sectionValue, rhs.sectionValue, strings: rules.first?.strings)
            if order == .orderedSame { order = lhs.section < rhs.section ? .orderedAscending : .orderedDescending }
            return order == (sectionsDescending ? .orderedDescending : .orderedAscending)
        }
        for (index, rule) in rules.enumerated() {
            var result = SortValue.compare(lhs.values[index], rhs.values[index], strings: rule.strings)
            if rule.reverse {
                result = result == .orderedAscending ? .orderedDescending : (result == .orderedDescending ? .orderedAscending : .orderedSame)
            }
            if result != .orderedSame { return result == .orderedAscending }
        }
        return (lhs.temporary, lhs.key) < (rhs.temporary, rhs.key)
    }
}
