// Objects are equal when they are the same object, as Core Data's are, and
// hash by identity.
extension ManagedObject {
    /// Whether `lhs` and `rhs` are the same object.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool {
        lhs === rhs
    }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// The hash `Set<ManagedObject>` uses (the notifications' sets, the
    /// context's inserted, updated and deleted objects): the object's
    /// address mixed without `Hasher` (see `mixedHash(_:seed:)`).
    public func _rawHashValue(seed: Int) -> Int {
        mixedHash(UInt64(UInt(bitPattern: ObjectIdentifier(self))), seed: seed)
    }
}
