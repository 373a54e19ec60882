/// Declares a stored attribute of a ``ManagedObject`` subclass.
///
/// ```swift
/// final class FeedItem: ManagedObject {
///     @Attribute var title = ""            // defaulted
///     @Attribute var published: Date?      // optional: nil is a valid value
///     @Attribute var link: URL             // required: must be set before save
/// }
/// ```
///
/// The Swift type decides the ``AttributeType``: `Bool`, `Int`, `Int16`,
/// `Int32`, `Int64`, `Double`, `Float`, `String`, `Date`, `Data`, `UUID`, `URL`,
/// `Decimal`, their optionals, `RawRepresentable` types with one of those raw
/// values, and any other `Codable` type (stored as JSON). Another type makes
/// ``ManagedObjectModel/init(entities:)`` throw ``ModelError/unsupportedAttributeType(entity:property:type:)``.
///
/// An attribute declared without an initial value has no value until it is
/// set: reading it before then stops the program with a message naming the
/// property, and saving the object throws ``ValidationError/missingValue(entity:property:)``.
/// Predicates, sort descriptors and observed key paths use it like any other.
///
/// Every write is recorded by the object's context; reads of a fault fill the
/// object from its snapshot first. **Complexity:** reads are O(1); a write is
/// O(1) plus, for the first write of a property between two change
/// notifications, the conversion of the old value to its store form.
@propertyWrapper
public struct Attribute<Value> {
    /// The current value; `nil` only for an attribute declared without an
    /// initial value that was never set.
    @usableFromInline var storage: Value?

    /// An attribute whose initial value for new objects is `wrappedValue`.
    public init(wrappedValue: Value) {
        storage = wrappedValue
    }

    /// An attribute declared without an initial value: `nil` for an optional
    /// type, otherwise a required attribute that must be set before saving.
    public init() {
        storage = (Value.self as? any ExpressibleByNilLiteral.Type).map { $0.init(nilLiteral: ()) as! Value }
    }

    @available(*, unavailable, message: "@Attribute is only available on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Attribute is only available on properties of ManagedObject subclasses") }
        set { fatalError("@Attribute is only available on properties of ManagedObject subclasses") }
    }

    /// Accessor used by Swift for properties of classes. Inlinable, so that
    /// in the entity's module, for an object that is loaded (no fault, no
    /// prototype, context not taking part in Observation) in a release build,
    /// a read is: a check of the object's state and a load of the field at
    /// the offset the storage key path holds (``StoredOffset``: an atomic
    /// load and two loads from the key path). No exclusivity check and no
    /// memo.
    ///
    /// Observation is told about the storage key path, on reads and writes
    /// alike, so an optimized build that inlines this accessor does not make
    /// the wrapped key path.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Attribute<Value>>
    ) -> Value {
        get {
            if object._needsAccessCheck {
                object._prepareForRead { fieldOffset(of: storageKeyPath, in: object) }
                object._observeRead(object, storageKeyPath)
            }
            let stored: Value?
            if let offset = StoredOffset.offset(of: storageKeyPath) {
                stored = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()).advanced(by: offset)
                    .assumingMemoryBound(to: Attribute<Value>.self).pointee.storage
            } else {
                stored = object[keyPath: storageKeyPath].storage
            }
            guard let value = stored else {
                object._trapMissingValue(offset: fieldOffset(of: storageKeyPath, in: object))
            }
            return value
        }
        // Inlined into the property's setter, so that the wrapped key path,
        // which it does not use, is never made (a getter's specialization
        // drops it; a setter's does not).
        @inline(__always) set {
            let offset = StoredOffset.offset(of: storageKeyPath)
                ?? object._storageOffset(storageKeyPath) { fieldOffset(of: storageKeyPath, in: object) }
            object._prepareForWrite(offset: offset)
            object._observeWrite(object, storageKeyPath) {
                UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()).advanced(by: offset)
                    .assumingMemoryBound(to: Attribute<Value>.self).pointee.storage = newValue
            }
        }
    }
}

/// The byte offset of a wrapper's storage inside its object.
@inlinable @inline(__always)
func fieldOffset<Object: ManagedObject, Wrapper>(
    of keyPath: ReferenceWritableKeyPath<Object, Wrapper>, in object: Object
) -> Int {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    return withUnsafeMutablePointer(to: &object[keyPath: keyPath]) { base.distance(to: UnsafeRawPointer($0)) }
}
