import Foundation

/// One section of a fetched results controller, as Core Data's
/// `NSFetchedResultsSectionInfo`: ``AnyFetchedResultsController/sections``
/// holds them, and the delegate receives the section that was inserted or
/// deleted.
public protocol FetchedResultsSectionInfo {
    /// The section's name: the value of the section name key path, as a
    /// string ("" without a section name key path, or for objects whose
    /// value is `nil`).
    var name: String { get }
    /// The section's title in a section index: by default, the capitalized
    /// first letter of ``name`` (`nil` for an empty name); see
    /// ``AnyFetchedResultsController/sectionIndexTitle(forSectionName:)``.
    var indexTitle: String? { get }
    /// The number of objects (rows) in the section.
    var numberOfObjects: Int { get }
    /// The objects of the section, in order.
    var objects: [ManagedObject] { get }
}

/// The controller's section info.
struct FetchedResultsSection: FetchedResultsSectionInfo, CustomStringConvertible {
    let name: String
    let indexTitle: String?
    let objects: [ManagedObject]
    var numberOfObjects: Int { objects.count }

    /// The name and the number of objects, for logs.
    var description: String { "\(name) (\(objects.count))" }
}

// MARK: Section index

extension AnyFetchedResultsController {
    /// The section index: the distinct index titles of the sections, in
    /// section order (sections "Apple", "Avocado", "banana" give "A", "B").
    /// Empty before ``performFetch()``. Each title comes from the delegate's
    /// ``FetchedResultsControllerDelegate/controller(_:sectionIndexTitleForSectionName:)``,
    /// which defaults to ``sectionIndexTitle(forSectionName:)``.
    ///
    /// Core Data: <https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/sectionindextitles>
    public var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        var titles: [String] = []
        for range in sectionRanges {
            if let title = indexTitle(forSectionName: range.name), seen.insert(title).inserted { titles.append(title) }
        }
        return titles
    }

    /// The section index title of a section name: its capitalized first
    /// letter, or `nil` for "". Core Data lets a subclass override this
    /// method; here, implement the delegate's
    /// ``FetchedResultsControllerDelegate/controller(_:sectionIndexTitleForSectionName:)``
    /// instead, which Core Data offers too.
    ///
    /// Core Data: <https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/sectionindextitle(forsectionname:)>
    public func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).capitalized }
    }

    /// The index of the first section whose index title is `title`, for
    /// `tableView(_:sectionForSectionIndexTitle:at:)`. `sectionIndex`, the
    /// title's position in ``sectionIndexTitles``, is not needed. Traps if
    /// no section has that title (a title that is not in
    /// ``sectionIndexTitles``).
    ///
    /// Core Data: <https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/section(forsectionindextitle:at:)>
    public func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        for (index, range) in sectionRanges.enumerated() where indexTitle(forSectionName: range.name) == title {
            return index
        }
        fatalError("Coherence: no section of the \(entity.name) fetched results controller has the index title \"\(title)\"")
    }

    /// A section's index title, as the delegate (or by default the
    /// controller) gives it.
    func indexTitle(forSectionName name: String) -> String? {
        guard let delegate else { return sectionIndexTitle(forSectionName: name) }
        return delegate.controller(self, sectionIndexTitleForSectionName: name)
    }
}

// MARK: Section name key paths

/// How a controller finds each object's section name.
enum SectionKey {
    /// No sections: one section named "" holds every object.
    case none
    /// A Swift key path to the name (the typed initializer).
    case name((ManagedObject) -> String)
    /// A key path string resolved through the model: to-one relationships
    /// by name, then an attribute.
    case path(relationships: [String], attribute: String)

    /// Whether the controller makes sections.
    var makesSections: Bool {
        if case .none = self { return false }
        return true
    }

    /// Resolves `path` (`"section"`, `"server.name"`) from `entity` through
    /// the model; traps, naming the entity and the key, for a key on the way
    /// that is not a to-one relationship, or a last key that is a
    /// relationship, as Core Data raises for a key it cannot read. A last
    /// key that is no property is read with `value(forKey:)`, which asks
    /// the class's ``ManagedObject/value(forUndefinedKey:)``.
    static func resolve(_ path: String, entity: EntityDescription, in context: ManagedObjectContext) -> SectionKey {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = entity
        for key in keys.dropLast() {
            guard let relationship = current.relationship(named: key) else {
                fatalError("Coherence: the section name key path \"\(path)\" of a \(entity.name) fetched results controller: "
                    + "\(current.name) has no relationship named \"\(key)\"")
            }
            guard !relationship.isToMany else {
                fatalError("Coherence: the section name key path \"\(path)\" of a \(entity.name) fetched results controller: "
                    + "\(current.name).\(key) is a to-many relationship; a section needs one value")
            }
            current = context.entity(for: relationship.destinationType)
        }
        // The last key is an attribute, or a computed property the class
        // offers through `value(forUndefinedKey:)` (Core Data reads `@objc`
        // computed properties by name).
        let last = keys.last ?? ""
        if current.relationship(named: last) != nil {
            fatalError("Coherence: the section name key path \"\(path)\" of a \(entity.name) fetched results controller: "
                + "\(current.name).\(last) is a relationship; the key path must end at an attribute")
        }
        return .path(relationships: Array(keys.dropLast()), attribute: last)
    }

    /// An object's section name, and the value it was made from, which
    /// orders the sections.
    func section(of object: ManagedObject) -> (name: String, value: SortValue) {
        switch self {
        case .none:
            return ("", .none)
        case .name(let name):
            let name = name(object)
            return (name, .string(name))
        case .path(let relationships, let attribute):
            var current: ManagedObject? = object
            for relationship in relationships { current = current?.value(forKey: relationship) as? ManagedObject }
            guard let value = current.flatMap({ Self.unwrapped($0.value(forKey: attribute)) }) else { return ("", .none) }
            return (Self.name(of: value), SortValue(value))
        }
    }

    /// A section name for a value, as Core Data makes one: a string is its
    /// own name, a Boolean "1" or "0" (an `NSNumber`'s description), any
    /// other value its description.
    static func name(of value: Any) -> String {
        switch value {
        case let string as String: string
        case let bool as Bool: bool ? "1" : "0"
        default: String(describing: value)
        }
    }

    /// `value` without `NSNull` or an optional around it.
    private static func unwrapped(_ value: Any?) -> Any? {
        guard let value, !(value is NSNull) else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }
}
