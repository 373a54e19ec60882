import Foundation

/// How a ``StoreSortDescriptor`` orders strings: one of the orders a
/// `SortDescriptor` can have on a `String` key path, which a store that sorts
/// must reproduce exactly, ties included (tied strings then follow the
/// primary key, as in a stable sort of objects read in primary-key order).
///
/// A `SortDescriptor` whose string comparison is none of these is sorted by
/// the context, in memory.
public enum StoreStringOrder: Sendable, Hashable, CaseIterable {
    /// `String`'s `Comparable` order: Unicode canonical equivalence, so
    /// `"e\u{301}"` and `"é"` are equal. `SortDescriptor(\.title)` orders by
    /// it on Linux, where Foundation has no localized comparators.
    case comparable
    /// `String.StandardComparator.lexical`: `compare(_:options: [])`.
    case lexical
    #if canImport(Darwin)
    /// `String.StandardComparator.localizedStandard`, the Finder's order in
    /// the current locale (`SortDescriptor(\.title)` on Apple platforms).
    case localizedStandard
    /// `String.StandardComparator.localized`: `localizedCompare` in the
    /// current locale.
    case localized
    #endif

    /// The order of a `SortDescriptor` with this string comparator, or `nil`
    /// if no store can reproduce it. `nil` stands for no comparator: the
    /// `Comparable` order.
    public init?(_ comparator: String.StandardComparator?) {
        guard var comparator else {
            self = .comparable
            return
        }
        comparator.order = .forward
        guard let order = Self.allCases.first(where: { $0.standardComparator == comparator }) else { return nil }
        self = order
    }

    /// The Foundation comparator this order stands for; `nil` for
    /// ``comparable``.
    public var standardComparator: String.StandardComparator? {
        switch self {
        case .comparable: nil
        case .lexical: .lexical
        #if canImport(Darwin)
        case .localizedStandard: .localizedStandard
        case .localized: .localized
        #endif
        }
    }

    /// Whether two ASCII strings compare as their bytes do (`memcmp`, then
    /// the shorter first). True of `String`'s `Comparable` order, which
    /// compares Unicode scalars after normalization (ASCII is normalized
    /// already), and on Linux of `.lexical`, which swift-foundation
    /// implements as `String`'s `<` when no option is set.
    var ordersASCIIByBytes: Bool {
        switch self {
        case .comparable: true
        #if canImport(Darwin)
        case .lexical, .localizedStandard, .localized: false
        #else
        case .lexical: true
        #endif
        }
    }

    /// Compares two strings in ascending order with the very function the
    /// `SortDescriptor` calls, so a store that sorts with it cannot disagree
    /// with a sort in memory.
    public func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        if let standardComparator { return standardComparator.compare(lhs, rhs) }
        return ComparableComparator<String>().compare(lhs, rhs)
    }
}
