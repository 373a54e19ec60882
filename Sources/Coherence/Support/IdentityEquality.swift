// Core Data's classes compare as `NSObject`s do: by identity. Code that
// compares contexts, fetch requests or entities with `==` (or keeps them in
// sets) ports unchanged.

extension ManagedObjectContext: Hashable {
    /// Whether `lhs` and `rhs` are the same context.
    public static func == (lhs: ManagedObjectContext, rhs: ManagedObjectContext) -> Bool { lhs === rhs }

    /// Hashes the context's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension FetchRequest: Hashable {
    /// Whether `lhs` and `rhs` are the same request.
    public static func == (lhs: FetchRequest, rhs: FetchRequest) -> Bool { lhs === rhs }

    /// Hashes the request's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension EntityDescription: Hashable {
    /// Whether `lhs` and `rhs` are the same entity description.
    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool { lhs === rhs }

    /// Hashes the entity description's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
