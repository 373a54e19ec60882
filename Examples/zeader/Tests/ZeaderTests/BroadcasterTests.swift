import Testing
@testable import ZeaderKit

/// The fan-out to pages.
@Suite("Broadcaster")
struct BroadcasterTests {
    @Test func everyPageGetsEveryEventAfterItsFirst() async {
        let broadcaster = Broadcaster()
        let first = broadcaster.subscribe(first: "snapshot 1")
        let second = broadcaster.subscribe(first: "snapshot 2")
        broadcaster.send("a")
        broadcaster.send("b")
        #expect(await read(first) { $0 == "b" } == ["snapshot 1", "a", "b"])
        #expect(await read(second) { $0 == "b" } == ["snapshot 2", "a", "b"])
        #expect(broadcaster.count == 2)
    }

    /// A page more than `bufferLimit` events behind has its stream ended
    /// after what it has (its EventSource then reconnects and gets a new
    /// snapshot); the others go on.
    @Test func aPageTooFarBehindIsEnded() async {
        let broadcaster = Broadcaster(bufferLimit: 3)
        let slow = broadcaster.subscribe(first: "snapshot")
        var received: [String] = []
        for event in ["a", "b", "c"] { broadcaster.send(event) }
        for await event in slow { received.append(event) }
        #expect(received == ["snapshot", "a", "b"])
        #expect(broadcaster.count == 0)
        let next = broadcaster.subscribe(first: "snapshot again")
        broadcaster.send("d")
        #expect(await read(next) { $0 == "d" } == ["snapshot again", "d"])
    }
}
