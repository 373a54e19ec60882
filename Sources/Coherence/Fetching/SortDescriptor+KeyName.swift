import Foundation

extension SortDescriptor where Compared: ManagedObject {
    /// A sort descriptor for the attribute named `key`: Core Data's
    /// `NSSortDescriptor(key:ascending:)`, for generic code that knows the
    /// attribute only by name (a column a user clicked, a setting).
    ///
    /// It orders as the typed descriptor on the same attribute
    /// (`SortDescriptor(\Car.make)`) does, with the same string comparison,
    /// `nil` first (enumerations by their raw values); the SQLite store
    /// sorts by it in SQL. Fetches and fetched results controllers accept
    /// it, and so do fetch requests for an entity given by name
    /// (`FetchRequest<ManagedObject>(entityName:)`).
    ///
    /// As in Core Data, which checks the key when the fetch runs, a fetch
    /// with a key that is not an attribute of the entity, or one of a type
    /// that cannot be ordered (binary data, `Codable` values), throws
    /// ``FetchError/unknownSortKey(entity:key:)``. Sorting objects outside a
    /// fetch (`array.sorted(using:)`) by such a key stops the program, as
    /// Core Data's key-value coding raises for an unknown key.
    /// <https://developer.apple.com/documentation/foundation/nssortdescriptor/init(key:ascending:)>
    public init(key: String, order: SortOrder = .forward) {
        self.init(\Compared.[_sortKey: SortKeyName(name: key)], order: order)
    }

    /// `init(key:order:)` with Core Data's `ascending` flag.
    public init(key: String, ascending: Bool) {
        self.init(key: key, order: ascending ? .forward : .reverse)
    }

    /// Whether this descriptor was made by `init(key:order:)`.
    var isByKeyName: Bool {
        keyPath.map { type(of: $0).valueType == KeyedSortValue.self } ?? false
    }

    /// The index of the attribute a by-name descriptor sorts by; `nil` for
    /// other descriptors.
    /// - Throws: ``FetchError/unknownSortKey(entity:key:)`` when the name is
    ///   not an attribute of `entity` that can be ordered.
    func keyedAttributeIndex(in entity: EntityDescription) throws -> Int? {
        guard isByKeyName, let keyPath else { return nil }
        for attribute in entity.attributes where SortValue.sortsByStoreValue(attribute.attributeType) {
            let name = SortKeyName(name: attribute.name)
            // Made by this initializer, or by the one for fetch request
            // results in generic code (`_sortKeyName`).
            if keyPath == \Compared.[_sortKey: name] || keyPath == \Compared.[_sortKeyName: name] { return attribute.index }
        }
        // Unknown: read the name back through an object of the entity that
        // belongs to no context, which the subscript answers with the name.
        let probe = entity.managedObjectClass.init() as! Compared
        let name = (probe[keyPath: keyPath] as? KeyedSortValue)?.name ?? "\(keyPath)"
        throw FetchError.unknownSortKey(entity: entity.name, key: name)
    }
}

extension SortDescriptor where Compared: FetchRequestResult {
    /// A sort descriptor by attribute name for a request whose results are
    /// not objects (`FetchRequest<NSDictionary>`, `FetchRequest<ManagedObjectID>`):
    /// Core Data's `NSSortDescriptor(key:ascending:)`. The fetch sorts the
    /// entity's objects by the attribute; see `init(key:order:)`.
    public init(key: String, order: SortOrder = .forward) {
        self.init(\Compared.[_sortKeyName: SortKeyName(name: key)], order: order)
    }

    /// `init(key:order:)` with Core Data's `ascending` flag.
    public init(key: String, ascending: Bool) {
        self.init(key: key, order: ascending ? .forward : .reverse)
    }
}

extension SortDescriptor where Compared == any FetchRequestResult {
    /// A sort descriptor by attribute name for Core Data's untyped request
    /// (`FetchRequest<FetchRequestResult>`): `NSSortDescriptor(key:ascending:)`.
    public init(key: String, order: SortOrder = .forward) {
        self.init(\Compared.[_sortKeyName: SortKeyName(name: key)], order: order)
    }

    /// `init(key:order:)` with Core Data's `ascending` flag.
    public init(key: String, ascending: Bool) {
        self.init(key: key, order: ascending ? .forward : .reverse)
    }
}

extension FetchRequestResult {
    /// The key path of a by-name sort descriptor for results that are not
    /// objects: only its index (the name) matters; the fetch sorts the
    /// entity's objects by it. Sorting such results outside a fetch stops
    /// the program, as Core Data's key-value coding raises.
    subscript(_sortKeyName key: SortKeyName) -> KeyedSortValue {
        // Generic code may make one for an entity's class: it then reads as
        // the descriptor ManagedObject's initializer makes.
        if let object = self as? ManagedObject { return object[_sortKey: key] }
        fatalError("Coherence: \(type(of: self)) values cannot be sorted by the key \"\(key.name)\"; a fetch sorts its entity's objects by it")
    }
}

extension SortDescriptor {
    /// The attribute name of a by-name descriptor made for results that are
    /// not objects (`init(key:order:)`), found among `names`; `nil` for
    /// any other descriptor.
    func attributeName(among names: [String]) -> String? {
        guard let keyPath else { return nil }
        let path = keyPath as AnyKeyPath
        if Compared.self == (any FetchRequestResult).self {
            return names.first { path == \(any FetchRequestResult).[_sortKeyName: SortKeyName(name: $0)] }
        }
        guard let resultType = Compared.self as? any FetchRequestResult.Type else { return nil }
        func find<T: FetchRequestResult>(_: T.Type) -> String? {
            names.first { path == \T.[_sortKeyName: SortKeyName(name: $0)] }
        }
        return find(resultType)
    }
}

/// The index of a by-name sort key path: an attribute name.
struct SortKeyName: Hashable, Sendable {
    let name: String
}

/// The value a by-name sort key path reads: the attribute's sort value,
/// ordered as a typed `SortDescriptor` orders the attribute's Swift value.
struct KeyedSortValue: Comparable {
    let name: String
    let value: SortValue

    /// How a typed `SortDescriptor` on a `String` key path compares by
    /// default (`.localizedStandard` on Apple platforms, `String`'s `<` on
    /// Linux).
    static let strings: String.StandardComparator? = SortDescriptor(\StringKey.value).stringComparator

    private struct StringKey {
        var value: String
    }

    static func < (lhs: KeyedSortValue, rhs: KeyedSortValue) -> Bool {
        SortValue.compare(lhs.value, rhs.value, strings: strings) == .orderedAscending
    }

    static func == (lhs: KeyedSortValue, rhs: KeyedSortValue) -> Bool {
        SortValue.compare(lhs.value, rhs.value, strings: strings) == .orderedSame
    }
}

extension ManagedObject {
    /// The value of the attribute `key` names, for sorting by name. An
    /// object outside any context (a probe) answers with the name only.
    final subscript(_sortKey key: SortKeyName) -> KeyedSortValue {
        guard let entity = _entity else { return KeyedSortValue(name: key.name, value: .none) }
        guard let index = entity.indexByName[key.name], index < entity.attributes.count,
              SortValue.sortsByStoreValue(entity.attributes[index].attributeType) else {
            fatalError("Coherence: cannot sort \(entity.name) objects by \"\(key.name)\": the entity has no attribute of that name that can be ordered")
        }
        return KeyedSortValue(name: key.name, value: _readProperty(at: index, entity: entity).map { SortValue($0) } ?? .none)
    }
}
