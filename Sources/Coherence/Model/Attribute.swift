import Foundation

/// Declares a stored attribute of a ``ManagedObject`` subclass.
///
/// ```swift
/// final class FeedItem: ManagedObject {
///     @Attribute var title = ""            // defaulted
///     @Attribute var published: Date?      // optional: nil is a valid value
///     @Attribute var link: URL             // required: must be set before save
///     @Attribute(.transient) var isEditing = false
/// }
/// ```
///
/// The Swift type decides the ``AttributeType``: `Bool`, `Int`, `Int16`,
/// `Int32`, `Int64`, `Double`, `Float`, `String`, `Date`, `Data`, `UUID`, `URL`,
/// `Decimal`, their optionals, `RawRepresentable` types with one of those raw
/// values, and any other `Codable` type (stored as JSON). Another type makes
/// ``ManagedObjectModel/init(entities:)`` throw ``ModelError/unsupportedAttributeType(entity:property:type:)``.
///
/// The initial value is the entity's default value, as in a Core Data model:
/// a new object gets it when it is inserted. One written as a literal
/// (`""`, `0`, `false`, `nil`, `[]`) is computed once; any other (`UUID()`,
/// `.now`, `.draft`) for each inserted object, as a stored property's
/// initial value is. An attribute declared without an initial value has no value until it
/// is set: reading it before then stops the program with a message naming
/// the property, and saving the object throws ``ValidationError/missingValue(entity:property:)``.
/// Predicates, sort descriptors and observed key paths use it like any other.
///
/// `@Attribute` is a macro: the property becomes a computed property whose
/// value lives in the object's snapshot and change buffer (the object
/// itself stores nothing for it), plus a zero-size field `_title` and a
/// nested type `__Coherence_title` holding the declaration. Declare it with
/// `var`, one property per declaration, in the body of a non-generic class.
///
/// **Complexity:** a read is O(1): in a release build, for a loaded object
/// of a context that does not take part in Observation, a test of the
/// object's state flags and a load from its buffer or snapshot. A write is
/// O(1) plus, for the first write of a property between two change
/// notifications, the copy of the old value for change tracking.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Attribute(_ options: AttributeOption...) = #externalMacro(module: "CoherenceMacros", type: "AttributeMacro")

/// An `@Attribute`'s declaration: what the macro generates for each
/// attribute, as static data. Not for your code; ``EntityDescription``
/// describes attributes.
public class AttributeDeclaration<Value>: PropertyDeclaration, @unchecked Sendable {
    // @unchecked: every stored property is immutable and Sendable but for
    // the codec's closures, which are `@Sendable`.

    /// The options written in the declaration.
    let options: [AttributeOption]
    /// How values convert to and from store form; `nil` for a type
    /// Coherence cannot store (the model reports it).
    let codec: ValueCodec<Value>?
    /// The initial value.
    let initialValue: InitialValue

    /// The user info of a model file's attribute (empty for `@Attribute`).
    let userInfo: [String: String]
    /// Whether a model file declares the attribute Transformable (its
    /// `Data` is a keyed archive of an object).
    var isTransformable = false

    /// An attribute a model file declares (see `ModelFile+Attributes.swift`).
    init(fileName name: String, options: [AttributeOption], initialValue: InitialValue, userInfo: [String: String], isTransformable: Bool = false) {
        self.isTransformable = isTransformable
        self.options = options
        codec = ValueCodec<Value>.make()
        self.initialValue = initialValue
        self.userInfo = userInfo
        super.init(name: name)
    }

    /// A derived attribute's declaration (see ``DerivedDeclaration``).
    init(derivedName name: String, initialValue: Value) {
        options = []
        userInfo = [:]
        let codec = ValueCodec<Value>.make()
        self.codec = codec
        self.initialValue = (codec.flatMap { try? $0.encode(initialValue) }).map { .constant($0) } ?? .none
        super.init(name: name)
    }

    /// An attribute declared without an initial value: `nil` for an
    /// optional type, none for another (it must be set before saving).
    public init(_ options: AttributeOption..., name: String) {
        self.options = options
        userInfo = [:]
        codec = ValueCodec<Value>.make()
        initialValue = .none
        super.init(name: name)
    }

    /// An attribute whose initial value is written as a literal: encoded
    /// once.
    public init(_ options: AttributeOption..., name: String, constant: Value) {
        self.options = options
        userInfo = [:]
        let codec = ValueCodec<Value>.make()
        self.codec = codec
        do {
            initialValue = try codec.map { .constant(try $0.encode(constant)) } ?? .none
        } catch {
            initialValue = .invalid("\(error)")
        }
        super.init(name: name)
    }

    /// An attribute whose initial value is computed for each new object.
    public init(_ options: AttributeOption..., name: String, default makeDefault: @escaping @Sendable () -> Value) {
        self.options = options
        userInfo = [:]
        let codec = ValueCodec<Value>.make()
        self.codec = codec
        if let codec {
            initialValue = .computed { try codec.encode(makeDefault()) }
        } else {
            initialValue = .none
        }
        super.init(name: name)
    }

    /// The Swift value of a property read: fast paths for the common
    /// types, inlined into the accessor and reduced to one of them by
    /// specialization, then the codec.
    @inlinable @inline(__always)
    final func decode(_ value: StoreValue?, object: ManagedObject) -> Value {
        if let value {
            switch value {
            case .integer(let integer):
                if Value.self == Int.self { return unsafeBitCast(Int(truncatingIfNeeded: integer), to: Value.self) }
                if Value.self == Int64.self { return unsafeBitCast(integer, to: Value.self) }
                if Value.self == Int?.self { return unsafeBitCast(Int?.some(Int(truncatingIfNeeded: integer)), to: Value.self) }
            case .string(let string):
                if Value.self == String.self { return unsafeBitCast(string, to: Value.self) }
                if Value.self == String?.self { return unsafeBitCast(String?.some(string), to: Value.self) }
            case .double(let double):
                if Value.self == Double.self { return unsafeBitCast(double, to: Value.self) }
            case .bool(let bool):
                if Value.self == Bool.self { return unsafeBitCast(bool, to: Value.self) }
            case .null:
                if Value.self == String?.self { return unsafeBitCast(String?.none, to: Value.self) }
                if Value.self == Int?.self { return unsafeBitCast(Int?.none, to: Value.self) }
            default:
                break
            }
        }
        return decodeOther(value, object: object)
    }

    /// The Swift value of `word`, a snapshot's word of kind `kind` (see
    /// `_snapshotWord`), for the common fixed-width types (reduced to one
    /// by specialization); `nil` for any other type, which
    /// ``decode(_:object:)`` reads.
    @inlinable @inline(__always)
    final func decode(word: UInt64, kind: Int) -> Value? {
        switch kind {
        case 0: // SnapshotLayout.Kind.integer
            let integer = Int64(bitPattern: word)
            if Value.self == Int64.self { return unsafeBitCast(integer, to: Value.self) }
            if Value.self == Int.self { return unsafeBitCast(Int(truncatingIfNeeded: integer), to: Value.self) }
            if Value.self == Int?.self { return unsafeBitCast(Int?.some(Int(truncatingIfNeeded: integer)), to: Value.self) }
            if Value.self == Int64?.self { return unsafeBitCast(Int64?.some(integer), to: Value.self) }
        case 1: // .double
            if Value.self == Double.self { return unsafeBitCast(Double(bitPattern: word), to: Value.self) }
            if Value.self == Double?.self { return unsafeBitCast(Double?.some(Double(bitPattern: word)), to: Value.self) }
        case 2: // .bool
            if Value.self == Bool.self { return unsafeBitCast(word != 0, to: Value.self) }
        case 3: // .date
            let date = Date(timeIntervalSinceReferenceDate: Double(bitPattern: word))
            if Value.self == Date.self { return unsafeBitCast(date, to: Value.self) }
            if Value.self == Date?.self { return unsafeBitCast(Date?.some(date), to: Value.self) }
        default:
            break
        }
        return nil
    }

    /// The Swift value of a store value the fast paths do not take.
    @usableFromInline
    final func decodeOther(_ value: StoreValue?, object: ManagedObject) -> Value {
        guard let value else {
            if position < 0 {
                fatalError("Coherence: \(object.entityNameForMessages).\(name) was read before any ManagedObjectModel with \(object.entityNameForMessages) was built (or in an init() the model calls while it is built): build the model first")
            }
            fatalError("Coherence: \(object.entityNameForMessages).\(name) was read before it was set; it is declared without an initial value")
        }
        do {
            return try storableCodec(object).decode(value)
        } catch {
            fatalError("Coherence: the store holds a value for \(object.entityNameForMessages).\(name) that cannot be read: \(error)")
        }
    }

    /// The codec; stops the program for a type Coherence cannot store
    /// (which the model reports first, so only an object of a class in no
    /// model gets here).
    private func storableCodec(_ object: ManagedObject) -> ValueCodec<Value> {
        guard let codec else {
            fatalError("Coherence: \(object.entityNameForMessages).\(name) has a type Coherence cannot store (\(Value.self))")
        }
        return codec
    }

    /// The store form of a value written through the property.
    @inlinable @inline(__always)
    final func encode(_ value: Value, object: ManagedObject) -> StoreValue {
        if Value.self == Int.self { return .integer(Int64(unsafeBitCast(value, to: Int.self))) }
        if Value.self == Int64.self { return .integer(unsafeBitCast(value, to: Int64.self)) }
        if Value.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if Value.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
        if Value.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        return encodeOther(value, object: object)
    }

    /// The store form of a value the fast paths do not take.
    @usableFromInline
    final func encodeOther(_ value: Value, object: ManagedObject) -> StoreValue {
        do {
            return try storableCodec(object).encode(value)
        } catch {
            fatalError("Coherence: the value written to \(object.entityNameForMessages).\(name) cannot be stored: \(error)")
        }
    }
}

/// An attribute's initial value, as its declaration keeps it.
enum InitialValue: Sendable {
    /// None written: `nil` for an optional attribute, none for another.
    case none
    /// Written as a literal: the same for every object.
    case constant(StoreValue)
    /// Computed for each new object.
    case computed(@Sendable () throws -> StoreValue)
    /// A literal that cannot be stored (a `Codable` value that fails to
    /// encode): the model reports it.
    case invalid(String)
}
