/// What happens to a relationship's destination objects when the source
/// object is deleted, as in Core Data.
public enum DeleteRule: Sendable, Hashable, CustomStringConvertible {
    /// Remove the deleted object from the destination's inverse relationship.
    case nullify
    /// Delete the destination objects too.
    case cascade
    /// Refuse the deletion while the relationship has a destination: the
    /// save throws ``ValidationError/deleteDenied(entity:property:)``.
    case deny
    /// Do nothing to the destination objects; keeping the graph consistent is
    /// up to you.
    case noAction

    public var description: String {
        switch self {
        case .nullify: "nullify"
        case .cascade: "cascade"
        case .deny: "deny"
        case .noAction: "noAction"
        }
    }
}
