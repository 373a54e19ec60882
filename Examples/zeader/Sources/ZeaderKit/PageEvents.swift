// The events a page receives, as JSON in Server-Sent Events' data lines.
//
// Core Data technique (seed article: the fetched results controller driving
// a table): the controller's delete, insert, move and update reports, applied
// in this order, turn the old list into the new one without a refetch.
import Coherence

/// Changes to one list, in the order that applies them: remove by element
/// ID, insert at the new index (ascending), replace updated rows.
struct ListChange: Encodable {
    struct Row: Encodable {
        var id: String
        var index: Int?
        var html: String
    }

    var remove: [String] = []
    var insert: [Row] = []
    var update: [Row] = []

    var isEmpty: Bool { remove.isEmpty && insert.isEmpty && update.isEmpty }

    /// The insertions in ascending index, the order the page applies them.
    func sorted() -> ListChange {
        var sorted = self
        sorted.insert.sort { ($0.index ?? 0) < ($1.index ?? 0) }
        return sorted
    }

    var summary: String { "+\(insert.count) -\(remove.count) ~\(update.count)" }

    /// Records one change a fetched results controller reported. A move is
    /// a removal and an insertion; `html` renders the row as it is now.
    mutating func record(_ type: FetchedResultsChangeType, id: String, newIndex: Int?, html: () -> String) {
        switch type {
        case .delete:
            remove.append(id)
        case .insert, .move:
            if type == .move { remove.append(id) }
            insert.append(Row(id: id, index: newIndex, html: html()))
        case .update:
            update.append(Row(id: id, index: nil, html: html()))
        }
    }
}

/// What the controllers reported since their last didChangeContent.
struct PendingChanges {
    var servers = ListChange()
    var items: [String: ListChange] = [:]
    var removedItems: [String] = []
}

/// The first event of every page: its lists as they are.
struct SnapshotEvent: Encodable {
    var kind = "snapshot"
    var servers: String
    var items: String
    var feed: String
    var title: String
    var selected: String
    var unread: Int
}

/// Changes to the server list.
struct ServersEvent: Encodable {
    var kind = "servers"
    var remove: [String]
    var insert: [ListChange.Row]
    var update: [ListChange.Row]

    init(_ change: ListChange) {
        remove = change.remove
        insert = change.insert
        update = change.update
    }
}

/// Changes to item lists: rows gone (from whichever list shows them), and
/// each feed's insertions and updates.
struct ItemsEvent: Encodable {
    var kind = "items"
    var remove: [String]
    var feeds: [String: ListChange]
}

/// The total unread count, for the page's title.
struct TotalEvent: Encodable {
    var kind = "total"
    var unread: Int
}
