// The web page: plain server-rendered HTML, and a small script that applies
// the live stream's events to it.
//
// Core Data technique: objects stay on their context's queue. Rendering reads
// managed objects, so it runs on the view context's queue (inside perform, or
// in the fetched results controllers' delegate calls); what leaves it is a
// String. Feed text is untrusted: everything is escaped, and only http(s)
// links are kept.
import Coherence
import Foundation

/// HTML for the page and its rows.
enum Page {
    /// The whole page: the servers, the selected server's items, the add-feed
    /// form, and the script that keeps it live.
    static func document(servers: [Server], selected: Server?, items: [FeedItem]) -> String {
        let unread = servers.reduce(0) { $0 + $1.unreadCount }
        let selectedID = selected.map { domID($0) } ?? ""
        let eventsURL = "/events" + (selected.map { "?server=" + queryValue(uri($0)) } ?? "")
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>zeader (\(unread) unread)</title>
        <style>\(style)</style>
        </head>
        <body data-selected="\(escape(selectedID))" data-events="\(escape(eventsURL))">
        <header><h1>zeader</h1><form id="add-feed" method="post" action="/feeds">
        <input name="url" placeholder="https://example.com/feed.xml" size="40" required>
        <button type="submit">Add feed</button></form><p id="status"></p></header>
        <main>
        <nav><ul id="servers">\(servers.map { serverRow($0, selected: $0 == selected) }.joined())</ul></nav>
        <section><h2 id="feed-title">\(escape(selected?.title ?? "No feed yet"))</h2>
        <ul id="items" data-feed="\(escape(selected?.url ?? ""))">\(items.map(itemRow).joined())</ul></section>
        </main>
        <script>\(script)</script>
        </body>
        </html>
        """
    }

    /// One server in the list, with its unread count (the derived attribute).
    static func serverRow(_ server: Server, selected: Bool = false) -> String {
        let id = uri(server)
        return """
        <li class="server\(selected ? " selected" : "")" id="\(escape(domID(server)))" data-id="\(escape(id))">\
        <a class="name" href="/?server=\(escape(queryValue(id)))">\(escape(server.title))</a> \
        <span class="count">\(server.unreadCount)</span> \
        <button class="mark-all" type="button">Mark all read</button></li>
        """
    }

    /// One item: its title, its date, a link to the article.
    static func itemRow(_ item: FeedItem) -> String {
        let id = uri(item)
        let link = item.link.flatMap { $0.hasPrefix("https://") || $0.hasPrefix("http://") ? $0 : nil }
        return """
        <li class="item \(item.read ? "read" : "unread")" id="\(escape(domID(item)))" data-id="\(escape(id))">\
        <span class="title">\(escape(item.title))</span> \
        <time datetime="\(item.published.ISO8601Format())">\(escape(item.published.formatted(dayStyle)))</time>\
        \(link.map { " <a class=\"open\" href=\"\(escape($0))\" target=\"_blank\" rel=\"noopener\">open</a>" } ?? "")</li>
        """
    }

    /// The element ID of an object's row.
    static func domID(_ object: ManagedObject) -> String {
        (object is Server ? "server-" : "item-") + uri(object)
    }

    /// The object ID's URI, the page's name for an object.
    static func uri(_ object: ManagedObject) -> String {
        object.objectID.uriRepresentation().absoluteString
    }

    /// `text` with HTML's special characters escaped. Scalar by scalar, not
    /// character by character: a quote followed by a combining mark is one
    /// `Character`, and must not slip through.
    static func escape(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": escaped.append(contentsOf: "&quot;".unicodeScalars)
            case "'": escaped.append(contentsOf: "&#39;".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// `text` percent-encoded for a query value.
    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    private static let dayStyle = Date.FormatStyle(
        date: .abbreviated, time: .shortened, locale: Locale(identifier: "en_US_POSIX"),
        timeZone: TimeZone(secondsFromGMT: 0)!)
}
