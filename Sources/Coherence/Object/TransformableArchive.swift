import Foundation

/// The values of a model file's Transformable attributes: kept as `Data`,
/// a keyed archive made with secure coding, which is what Core Data's
/// default transformer (`NSSecureUnarchiveFromData`) stores. A `@Managed`
/// property declared with the attribute's class (`Color?`, or a Foundation
/// collection such as `[String]?`) reads and writes the object; Linux's
/// Foundation has no `ValueTransformer`, so a `valueTransformerName` in
/// the file is not called, and every Transformable attribute is archived
/// this way.
///
/// **Complexity:** O(size of the archive) per read and per write.
enum TransformableArchive {
    /// The classes an archive may hold besides the property's own:
    /// Foundation's property-list classes.
    static let foundationClasses: [AnyClass] = [
        NSArray.self, NSDictionary.self, NSSet.self, NSOrderedSet.self, NSString.self, NSNumber.self,
        NSDate.self, NSData.self, NSURL.self, NSUUID.self, NSNull.self,
    ]

    /// `value` archived, or `nil` when it does not conform to
    /// `NSSecureCoding` (Swift's Foundation value types bridge to classes
    /// that do). `property` names the attribute for a trap.
    static func archive(_ value: Any, property: @autoclosure () -> String) -> Data? {
        let object = value as AnyObject
        guard object is NSSecureCoding else { return nil }
        if isCollection(object) {
            checkFoundationValues(in: object, property: property())
        } else {
            checkTopLevel(type(of: object), property: property())
        }
        return try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    }

    /// Whether `new` equals the object `current` archives: a write of an
    /// equal value keeps the archive it has (archives of equal
    /// dictionaries and sets may differ byte for byte), so it is no change.
    static func archive(_ current: Data, holdsEqualTo new: Any, as type: Any.Type) -> Bool {
        var classes = foundationClasses
        if let type = type as? AnyClass, type is NSSecureCoding.Type, !isCollectionType(type) { classes.append(type) }
        guard let object = try? NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: current) else { return false }
        guard let current = object as AnyObject as? NSObject else { return false }
        return current.isEqual(new as AnyObject)
    }

    /// The object archived in `data`, as a `Value` (an optional's wrapped
    /// class is allowed in the archive), or `nil` when it holds something
    /// else.
    static func unarchive<Value>(_ data: Data, as _: Value.Type, property: @autoclosure () -> String) -> Value? {
        var classes = foundationClasses
        let wrapped: Any.Type = (Value.self as? any OptionalValue.Type)?.wrappedType ?? Value.self
        if let type = wrapped as? AnyClass, type is NSSecureCoding.Type, !isCollectionType(type) {
            checkTopLevel(type, property: property())
            classes.append(type)
        }
        guard let object = try? NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: data) else { return nil }
        return object as? Value
    }

    /// Whether `object` is a Foundation collection.
    private static func isCollection(_ object: AnyObject) -> Bool {
        object is NSArray || object is NSDictionary || object is NSSet || object is NSOrderedSet
    }

    private static func isCollectionType(_ type: AnyClass) -> Bool {
        [NSArray.self, NSDictionary.self, NSSet.self, NSOrderedSet.self].contains { isSameOrSubclass(type, of: $0) }
    }

    /// Stops the program, naming the attribute, unless every element of the
    /// collection `object` (recursively) is a Foundation value: reading the
    /// archive back allows Foundation's classes only, and Foundation on
    /// Linux stops the program itself, without naming the attribute, for
    /// an element of another class.
    private static func checkFoundationValues(in object: AnyObject, property: String) {
        var elements: [Any] = []
        if let array = object as? NSArray { elements = Array(array) }
        if let set = object as? NSSet { elements = Array(set) }
        if let ordered = object as? NSOrderedSet { elements = ordered.array }
        if let dictionary = object as? NSDictionary {
            for (key, value) in dictionary { elements += [key, value] }
        }
        for element in elements {
            let value = element as AnyObject
            if isCollection(value) {
                checkFoundationValues(in: value, property: property)
            } else if !foundationClasses.contains(where: { isSameOrSubclass(Swift.type(of: value), of: $0) }) {
                fatalError("Coherence: \(property) is a Transformable attribute kept as a keyed archive; a collection in it may hold "
                           + "only Foundation values (strings, numbers, dates, data, URLs, UUIDs and collections of them), not \(Swift.type(of: element))")
            }
        }
    }

    /// Stops the program, naming the attribute, for a class Linux's
    /// archiver cannot name (one nested in another type, or generic): it
    /// would stop the program itself, inside Foundation, without saying
    /// which attribute.
    private static func checkTopLevel(_ type: AnyClass, property: String) {
        let name = String(reflecting: type)
        guard !name.contains("<"), name.split(separator: ".").count <= 2 else {
            fatalError("Coherence: \(property) is a Transformable attribute kept as a keyed archive, and Foundation on Linux cannot "
                       + "archive \(name): declare the class at the top level of its module (not nested in another type, private or generic)")
        }
    }
}
