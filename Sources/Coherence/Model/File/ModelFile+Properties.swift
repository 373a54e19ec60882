import Foundation

// The properties of a model file's entity: each `<attribute>` becomes an
// `AttributeDeclaration` of the Swift type Core Data's Swift code uses for
// its attribute type, each `<relationship>` a `DeclaredRelationship`.
// Anything Coherence cannot honour is a `ModelError` naming the line.

extension ModelFile {
    /// The XML attributes of an `<attribute>` Coherence reads or may ignore
    /// (they only steer Xcode's code generation, Spotlight or version
    /// hashes, which Coherence does not use).
    static let attributeKeys: Set<String> = [
        "name", "attributeType", "optional", "transient", "defaultValueString", "defaultDateTimeInterval",
        "preserveAfterDeletion", "elementID", "indexed", "usesScalarValueType", "syncable", "versionHashModifier",
        "spotlightIndexingEnabled", "allowsExternalBinaryDataStorage", "derived", "derivationExpression", "storedInTruthFile",
        "allowsCloudEncryption",
    ]

    /// The attribute types Coherence reads, as Xcode names them.
    static let attributeTypes: Set<String> = [
        "Integer 16", "Integer 32", "Integer 64", "Decimal", "Double", "Float", "String", "Boolean", "Date", "Binary", "UUID", "URI",
        "Transformable",
    ]

    /// What a Transformable attribute may say besides ``attributeKeys``:
    /// its transformer and class, which only Xcode's code generation uses
    /// here (see `TransformableArchive`).
    static let transformableKeys: Set<String> = ["valueTransformerName", "customClassName"]

    /// The XML attributes of a `<relationship>` Coherence reads or may ignore.
    static let relationshipKeys: Set<String> = [
        "name", "optional", "toMany", "ordered", "minCount", "maxCount", "deletionRule", "destinationEntity",
        "inverseName", "inverseEntity", "elementID", "syncable", "versionHashModifier",
    ]

    /// An error at `element`'s line.
    func error(_ element: Element, entity: String, property: String = "", _ reason: String) -> ModelError {
        .modelFile(file: path, line: element.line, entity: entity, property: property, reason: reason)
    }

    /// Whether an XML attribute is `YES`.
    static func flag(_ element: Element, _ key: String) -> Bool {
        element.attributes[key] == "YES"
    }

    /// The entries of `element`'s `<userInfo>`.
    static func userInfo(of element: Element) -> [String: String] {
        var info: [String: String] = [:]
        for entry in element.children(named: "userInfo").flatMap({ $0.children(named: "entry") }) {
            if let key = entry.attributes["key"] { info[key] = entry.attributes["value"] ?? "" }
        }
        return info
    }

    /// Refuses XML attributes outside `known` and children other than
    /// `<userInfo>`: nothing in the file is silently dropped.
    func checkKnown(_ element: Element, _ known: Set<String>, entity: String, property: String) throws(ModelError) {
        if let unknown = element.attributes.keys.sorted().first(where: { !known.contains($0) }) {
            let value = element.attributes[unknown] ?? ""
            throw error(element, entity: entity, property: property, "\(unknown)=\"\(value)\" is not supported by Coherence")
        }
        if let child = element.children.first(where: { $0.name != "userInfo" }) {
            throw error(child, entity: entity, property: property, "<\(child.name)> is not supported by Coherence")
        }
    }

    // MARK: Attributes

    /// The declaration of an `<attribute>` of `entity`.
    func attribute(_ element: Element, entity: String) throws(ModelError) -> any AttributeDescribing {
        let name = element.attributes["name"] ?? ""
        let type = element.attributes["attributeType"] ?? "Undefined"
        guard Self.attributeTypes.contains(type) else {
            throw error(element, entity: entity, property: name, "attribute type \"\(type)\" is not supported by Coherence")
        }
        try checkKnown(element, type == "Transformable" ? Self.attributeKeys.union(Self.transformableKeys) : Self.attributeKeys,
                       entity: entity, property: name)
        if Self.flag(element, "derived"), let key = ["transient", "preserveAfterDeletion"].first(where: { Self.flag(element, $0) }) {
            throw error(element, entity: entity, property: name, "a derived attribute cannot be \(key): Coherence stores it to fetch by it")
        }
        for (key, feature) in [("allowsExternalBinaryDataStorage", "external binary storage (the store keeps the data in its row)"),
                               ("storedInTruthFile", "storing in a truth file"),
                               ("allowsCloudEncryption", "CloudKit encryption")] where Self.flag(element, key) {
            throw error(element, entity: entity, property: name, "\(key)=\"YES\": Coherence does not support \(feature)")
        }
        var options: [AttributeOption] = []
        if Self.flag(element, "transient") { options.append(.transient) }
        if Self.flag(element, "preserveAfterDeletion") { options.append(.preservesValueInHistoryOnDeletion) }
        let derivation = Self.flag(element, "derived") ? try derivation(element, entity: entity, property: name) : nil
        let spec = AttributeSpec(file: self, element: element, entity: entity, name: name, options: options,
                                 isOptional: Self.flag(element, "optional"), userInfo: Self.userInfo(of: element), derivation: derivation)
        switch type {
        case "Integer 16": return try spec.make(Int16.self) { Int16($0) }
        case "Integer 32": return try spec.make(Int32.self) { Int32($0) }
        case "Integer 64": return try spec.make(Int64.self) { Int64($0) }
        case "Decimal": return try spec.make(Decimal.self) { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        case "Double": return try spec.make(Double.self) { Double($0) }
        case "Float": return try spec.make(Float.self) { Float($0) }
        case "String": return try spec.make(String.self) { $0 }
        case "Boolean": return try spec.make(Bool.self) { ["YES": true, "NO": false, "true": true, "false": false, "1": true, "0": false][$0] }
        case "Date":
            return try spec.make(Date.self, default: element.attributes["defaultDateTimeInterval"]) {
                Double($0).map(Date.init(timeIntervalSinceReferenceDate:))
            }
        case "Binary": return try spec.make(Data.self) { _ in nil }
        case "Transformable":
            guard !Self.flag(element, "derived") else {
                throw error(element, entity: entity, property: name, "a Transformable attribute cannot be derived")
            }
            return try spec.make(Data.self) { _ in nil }
        case "UUID": return try spec.make(UUID.self) { UUID(uuidString: $0) }
        case "URI": return try spec.make(URL.self) { URL(string: $0) }
        default:
            throw error(element, entity: entity, property: name, "attribute type \"\(type)\" is not supported by Coherence")
        }
    }

    /// What an `<attribute>` says, ready to make its declaration for the
    /// Swift type of its attribute type.
    private struct AttributeSpec {
        let file: ModelFile
        let element: Element
        let entity: String
        let name: String
        let options: [AttributeOption]
        let isOptional: Bool
        let userInfo: [String: String]
        let derivation: DerivationDeclaration?
        var isTransformable: Bool { element.attributes["attributeType"] == "Transformable" }

        /// The declaration, of `Value?` for an optional attribute; its
        /// default value parsed from `text` (`defaultValueString` unless
        /// given).
        func make<Value>(_: Value.Type, default text: String?? = nil,
                         parse: (String) -> Value?) throws(ModelError) -> any AttributeDescribing {
            var initial = InitialValue.none
            if let text = text ?? element.attributes["defaultValueString"] {
                guard let value = parse(text) else {
                    throw file.error(element, entity: entity, property: name,
                                     "the default value \"\(text)\" is not a valid \(element.attributes["attributeType"] ?? "value")")
                }
                do {
                    initial = .constant(try isOptional ? ValueCodec<Value?>.make()!.encode(value) : ValueCodec<Value>.make()!.encode(value))
                } catch {
                    throw file.error(element, entity: entity, property: name, "the default value \"\(text)\" cannot be stored: \(error)")
                }
            }
            if let derivation {
                // Until it is first computed, a required derived number is zero.
                if case .none = initial, !isOptional, derivation.kind == .count || derivation.kind == .sum, let zero = parse("0") {
                    initial = (try? ValueCodec<Value>.make()!.encode(zero)).map { .constant($0) } ?? .none
                }
                if isOptional {
                    return DerivedDeclaration<Value?>(fileName: name, derivation: derivation, initialValue: initial, userInfo: userInfo)
                }
                return DerivedDeclaration<Value>(fileName: name, derivation: derivation, initialValue: initial, userInfo: userInfo)
            }
            if isOptional {
                return AttributeDeclaration<Value?>(fileName: name, options: options, initialValue: initial, userInfo: userInfo, isTransformable: isTransformable)
            }
            return AttributeDeclaration<Value>(fileName: name, options: options, initialValue: initial, userInfo: userInfo, isTransformable: isTransformable)
        }
    }

    /// What a derived attribute's `derivationExpression` derives: the
    /// expressions Core Data's derived attributes take that Coherence's
    /// `@Derived` can compute (`items.@count`, `items.@sum.price`,
    /// `@min`, `@max`, `@avg`, and `owner.name` through a to-one
    /// relationship).
    private func derivation(_ element: Element, entity: String, property: String) throws(ModelError) -> DerivationDeclaration {
        let expression = element.attributes["derivationExpression"] ?? ""
        let parts = expression.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let isName = { (part: String) in !part.isEmpty && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }
        let aggregates: [String: DerivationKind] = ["@sum": .sum, "@min": .min, "@max": .max, "@avg": .average]
        if parts.count == 2, isName(parts[0]), parts[1] == "@count" {
            return DerivationDeclaration(kind: .count, relationshipName: parts[0], attributeName: nil)
        }
        if parts.count == 3, isName(parts[0]), let kind = aggregates[parts[1]], isName(parts[2]) {
            return DerivationDeclaration(kind: kind, relationshipName: parts[0], attributeName: parts[2])
        }
        if parts.count == 2, isName(parts[0]), isName(parts[1]) {
            return DerivationDeclaration(kind: .copy, relationshipName: parts[0], attributeName: parts[1])
        }
        throw error(element, entity: entity, property: property,
                    "the derivation expression \"\(expression)\" is not supported by Coherence; it derives relationship.@count, "
                    + "relationship.@sum.attribute (@min, @max, @avg) over a to-many relationship and relationship.attribute over a to-one")
    }

    // MARK: Relationships

    /// A `<relationship>` of `entity`; `classes` gives each entity's class.
    func relationship(_ element: Element, entity: String, classes: [String: ManagedObject.Type]) throws(ModelError) -> DeclaredRelationship {
        let name = element.attributes["name"] ?? ""
        try checkKnown(element, Self.relationshipKeys, entity: entity, property: name)
        func fail(_ reason: String) -> ModelError { error(element, entity: entity, property: name, reason) }
        let isToMany = Self.flag(element, "toMany")
        guard let destinationName = element.attributes["destinationEntity"] else { throw fail("the relationship has no destination entity") }
        guard let destination = classes[destinationName] else { throw fail("the destination entity \(destinationName) is not in the model") }
        if let inverseEntity = element.attributes["inverseEntity"], classes[inverseEntity] == nil {
            throw fail("the inverse entity \(inverseEntity) is not in the model")
        }
        guard let inverse = element.attributes["inverseName"] else {
            throw fail("the relationship has no inverse; Coherence keeps both sides of every relationship, so give it one in the model")
        }
        var counts: [String: Int] = [:]
        for key in ["minCount", "maxCount"] {
            guard let text = element.attributes[key] else { continue }
            guard let count = Int(text), count >= 0 else { throw fail("\(key) \"\(text)\" is not a count") }
            counts[key] = count
        }
        // Core Data ignores `ordered` on a to-one relationship.
        let isOrdered = isToMany && Self.flag(element, "ordered")
        if !isToMany, let maxCount = counts["maxCount"], maxCount != 1 {
            throw fail("a to-one relationship has maxCount 1, not \(maxCount)")
        }
        let rules: [String: DeleteRule] = ["Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction]
        let ruleName = element.attributes["deletionRule"] ?? "Nullify"
        guard let deleteRule = rules[ruleName] else { throw fail("unknown deletion rule \"\(ruleName)\"") }
        let valueType: any RelationshipValue.Type = isToMany ? Set<ManagedObject>.self : ManagedObject?.self
        return DeclaredRelationship(name: name, valueType: valueType, destinationType: destination, isToMany: isToMany,
                                    deleteRule: deleteRule, inverse: nil, inverseName: inverse, userInfo: Self.userInfo(of: element),
                                    isOrdered: isOrdered, isOptional: Self.flag(element, "optional"),
                                    minCount: isToMany ? counts["minCount"] ?? 0 : 0, maxCount: isToMany ? counts["maxCount"] ?? 0 : 0)
    }
}
