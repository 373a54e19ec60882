import Synchronization

// What the property macros (`@Attribute`, `@Relationship`, `@Derived`)
// generate refers to these types. For `@Attribute var title = ""` in
// `FeedItem` they generate:
//
//     var title {
//         @storageRestrictions(initializes: _title) init(initialValue) { _title = Coherence.PropertyField() }
//         get { _read(__Coherence_title.declaration) }
//         set { _write(__Coherence_title.declaration, newValue) }
//     }
//     private var _title = Coherence.PropertyField<__Coherence_title>()
//     enum __Coherence_title: Coherence.AttributeDeclaring {
//         static let declaration = Coherence.AttributeDeclaration(name: "title", default: { "" })
//         static func keyPath(rootedAt type: AnyClass) -> AnyKeyPath? { … \Root.title … }
//     }
//
// The object stores nothing for the property (`PropertyField` has no
// size): its values are in the object's snapshot and change buffer
// (`ManagedObject+Values.swift`). The model lists an entity's properties
// from a `Mirror` of one instance (its `PropertyField`s), and reads
// everything else from the declarations.

/// Every ``ManagedObject`` class: a protocol to compose with a class, so
/// that a metatype held as `any (Vehicle & _EntityClass).Type` opens to its
/// dynamic class in generic code. The macros use it to form a property's
/// key path rooted at a subclass (`\Car.name` for a property `Vehicle`
/// declares); Coherence uses it for subclass tests. Not for your code.
public protocol _EntityClass: AnyObject {}

extension ManagedObject: _EntityClass {}

/// The field a property macro adds for each property, `_name`: it has no
/// size and holds nothing. Its type names the property's declaration, which
/// is how the model finds an entity's properties. Not for your code.
public struct PropertyField<Declaring>: Sendable {
    /// The field.
    @inlinable public init() {}
}

/// A field found in a mirror of an entity's object: its declaration.
protocol ReflectedPropertyField {
    static var declaring: any PropertyDeclaring.Type { get }
}

extension PropertyField: ReflectedPropertyField where Declaring: PropertyDeclaring {
    static var declaring: any PropertyDeclaring.Type { Declaring.self }
}

/// The nested type a property macro generates (`__Coherence_title`): the
/// property's declaration, as static data, and its key path.
public protocol PropertyDeclaring {
    /// The declaration, whatever its kind.
    static var anyDeclaration: PropertyDeclaration { get }
    /// The property's key path rooted at `type`, the declaring class or a
    /// subclass of it (`\Car.name` for `Car.self` when `Vehicle` declares
    /// `name`); `nil` for a class outside the declaring class's hierarchy.
    static func keyPath(rootedAt type: AnyClass) -> AnyKeyPath?
}

/// `@Attribute`'s declaring type.
public protocol AttributeDeclaring: PropertyDeclaring {
    /// The attribute's Swift type.
    associatedtype Value
    /// The attribute's declaration.
    static var declaration: AttributeDeclaration<Value> { get }
}

extension AttributeDeclaring {
    /// The declaration.
    public static var anyDeclaration: PropertyDeclaration { declaration }
}

/// `@Relationship`'s declaring type.
public protocol RelationshipDeclaring: PropertyDeclaring {
    /// The relationship's Swift type (`Server?`, `Set<FeedItem>`).
    associatedtype Value: RelationshipValue
    /// The relationship's declaration.
    static var declaration: RelationshipDeclaration<Value> { get }
}

extension RelationshipDeclaring {
    /// The declaration.
    public static var anyDeclaration: PropertyDeclaration { declaration }
}

/// `@Derived`'s declaring type.
public protocol DerivedDeclaring: PropertyDeclaring {
    /// The derived attribute's Swift type.
    associatedtype Value
    /// The derived attribute's declaration.
    static var declaration: DerivedDeclaration<Value> { get }
}

extension DerivedDeclaring {
    /// The declaration.
    public static var anyDeclaration: PropertyDeclaration { declaration }
}

/// What every property declaration has: its name and its place in its
/// entity, which the model sets when it is built.
///
/// A property's place is fixed by its class hierarchy: an entity lists its
/// ancestors' attributes first, in declaration order, then its own, and
/// its relationships the same way after all attributes. So one number per
/// declaration serves every entity that has the property: an attribute's
/// index in the entity, or a relationship's position among the entity's
/// relationships.
public class PropertyDeclaration: @unchecked Sendable {
    // @unchecked: `name` is immutable; `_position` is atomic.

    /// The property's name.
    public let name: String
    /// The position set by the model (see the type's comment); -1 until a
    /// model with the property was built.
    @usableFromInline let _position = Atomic<Int>(-1)
    /// The key path Observation knows the property by, on every object
    /// that has it: made once per declaration, so that reads and writes
    /// name the property without forming a key path each time.
    @usableFromInline let _observationKey: KeyPath<ManagedObject, Int>
    /// Where the snapshots an SQL store reads keep an attribute's value in
    /// one word (see `SnapshotLayout`), packed as `word << 3 | kind` (the
    /// word counted from the snapshot's first word, the kind the raw value
    /// of `SnapshotLayout.Kind`); -1 until a model with the property was
    /// built (and always for a relationship), -2 when no such word serves
    /// every entity with the property (a transient attribute, a type kept
    /// whole, or an entity whose null bitmap is longer than its parent's).
    @usableFromInline let _snapshotWord = Atomic<Int>(-1)

    init(name: String) {
        self.name = name
        _observationKey = \ManagedObject[_observedProperty: name]
    }

    /// The position, or -1 before any model with the property was built.
    @inlinable final var position: Int { _position.load(ordering: .relaxed) }

    /// See `_snapshotWord`.
    @inlinable final var snapshotWord: Int { _snapshotWord.load(ordering: .relaxed) }

    /// Records the position the model found; a declaration's position
    /// never changes (see the type's comment), which this checks.
    func bind(position: Int, entity: String) {
        let (exchanged, original) = _position.compareExchange(expected: -1, desired: position, ordering: .relaxed)
        require(exchanged || original == position,
                "Coherence: \(entity).\(name) was found at position \(position), after \(original) in an earlier model")
    }

    /// Records where `layout`, the layout of an entity with the property
    /// at `index`, keeps its value; a second entity that keeps it elsewhere
    /// turns the word off for good (-2). Every entity with the property is
    /// bound while its model is built, before any of its objects exists,
    /// so an object never reads a word its entity does not have.
    func bindSnapshotWord(_ layout: SnapshotLayout, index: Int) {
        let slot = layout.slots[index]
        let word = slot.kind == .whole ? -2 : (layout.bitmapWords + slot.word) << 3 | Int(slot.kind.rawValue)
        var current = _snapshotWord.load(ordering: .relaxed)
        while current != word, current != -2 {
            let (exchanged, original) = _snapshotWord.compareExchange(
                expected: current, desired: current == -1 ? word : -2, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}

extension ManagedObject {
    /// What ``PropertyDeclaration/_observationKey`` reads: a key path per
    /// property name (Observation tells properties apart by key path).
    final subscript(_observedProperty name: String) -> Int { 0 }
}

// The model reads declarations through these, without knowing their
// value types.

/// An attribute's declaration (``AttributeDeclaration``, and so
/// ``DerivedDeclaration``).
protocol AttributeDescribing {
    /// The attribute, at `index` in `entity`.
    func describe(entity: String, index: Int) throws(ModelError) -> AttributeDescription
}

/// A derived attribute's declaration.
protocol DerivedDescribing {
    var derivation: DerivationDeclaration { get }
}

/// A relationship's declaration.
protocol RelationshipDescribing {
    func declared() -> DeclaredRelationship
}

extension AttributeDeclaration: AttributeDescribing {
    func describe(entity: String, index: Int) throws(ModelError) -> AttributeDescription {
        guard let codec else {
            throw .unsupportedAttributeType(entity: entity, property: name, type: String(reflecting: Value.self))
        }
        var defaultValue: StoreValue?
        var makeInitialValue: (@Sendable () throws -> StoreValue)?
        switch initialValue {
        case .none:
            defaultValue = codec.isOptional ? .null : nil
        case .constant(let value):
            defaultValue = value
        case .computed(let make):
            do {
                defaultValue = try make()
            } catch {
                throw .invalidDefaultValue(entity: entity, property: name, reason: "\(error)")
            }
            makeInitialValue = make
        case .invalid(let reason):
            throw .invalidDefaultValue(entity: entity, property: name, reason: reason)
        }
        return AttributeDescription(
            name: name, index: index, attributeType: codec.attributeType, isOptional: codec.isOptional,
            defaultValue: defaultValue, access: self, makeInitialValue: makeInitialValue, isDerived: self is DerivedDescribing,
            isTransient: options.contains(.transient),
            preservesValueInHistoryOnDeletion: options.contains(.preservesValueInHistoryOnDeletion), userInfo: userInfo,
            isTransformable: isTransformable)
    }
}

extension DerivedDeclaration: DerivedDescribing {}

extension RelationshipDeclaration: RelationshipDescribing {
    func declared() -> DeclaredRelationship {
        DeclaredRelationship(name: name, valueType: Value.self, destinationType: Value._destinationType, isToMany: Value._isToMany,
                             deleteRule: deleteRule, inverse: inverse)
    }
}
