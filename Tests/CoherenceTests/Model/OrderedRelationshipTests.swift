import Coherence
import Foundation
import Testing

// Xcode's generated classes for a model file with an ordered relationship
// (`Playlist.tracks`, `ordered="YES"`), ported by renaming `@NSManaged` to
// `@Managed` and deleting the generated accessor functions, which
// `@Managed var tracks: NSOrderedSet?` generates.

final class Playlist: ManagedObject {}

extension Playlist {
    @Managed var name: String?
    @Managed var tracks: NSOrderedSet?
}

final class Track: ManagedObject {}

extension Track {
    @Managed var title: String?
    @Managed var playlist: Playlist?
}

/// Ordered to-many relationships from model files, as Core Data keeps them:
/// the value is an `NSOrderedSet`, its order is saved and read back on every
/// store, and Xcode's generated accessors edit it in place.
/// <https://developer.apple.com/documentation/coredata/nsrelationshipdescription/isordered>
@Suite("Ordered relationships")
struct OrderedRelationshipTests {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
            <entity name="Playlist" representedClassName="Playlist" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="tracks" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Track" inverseName="playlist" inverseEntity="Track"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="name"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Track" representedClassName="Track" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="playlist" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Playlist" inverseName="tracks" inverseEntity="Playlist"/>
            </entity>
        </model>
        """

    static func model() throws -> ManagedObjectModel {
        let folder = TestFiles.newURL("Playlists.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return try ManagedObjectModel(contentsOf: folder, classes: [Playlist.self, Track.self])
    }

    /// A store of `kind` and a function that opens a new context on it:
    /// on a new coordinator for a database, so that what it reads comes
    /// from the database and not from the first coordinator's cache.
    static func store(_ kind: StoreKind) throws -> (context: ManagedObjectContext, reopen: () throws -> ManagedObjectContext) {
        let model = try model()
        let description = try kind.makeDescription()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(description)
        let reopen = {
            guard kind != .inMemory else {
                return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            }
            let second = PersistentStoreCoordinator(managedObjectModel: model)
            try second.addPersistentStore(description)
            return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: second)
        }
        return (ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator), reopen)
    }

    static func titles(_ playlist: Playlist) -> [String] {
        (playlist.tracks?.array ?? []).map { ($0 as! Track).title ?? "" }
    }

    static func tracks(_ titles: [String], in context: ManagedObjectContext) -> [Track] {
        titles.map { title in
            let track = Track(context: context)
            track.title = title
            return track
        }
    }

    /// The first playlist read in a new context, and its track titles.
    static func savedTitles(_ reopen: () throws -> ManagedObjectContext) throws -> [String] {
        let reader = try reopen()
        return try reader.performAndWait {
            let playlist = try #require(try reader.fetch(FetchRequest<Playlist>(entityName: "Playlist")).first)
            return titles(playlist)
        }
    }

    /// The order given is the order saved and read back, also after a
    /// reorder of objects already saved.
    @Test(arguments: StoreKind.allCases) func orderSurvivesSaveAndFetch(store kind: StoreKind) throws {
        let (context, reopen) = try Self.store(kind)
        try context.performAndWait {
            let playlist = Playlist(context: context)
            playlist.tracks = NSOrderedSet(array: Self.tracks(["c", "a", "b"], in: context))
            #expect(Self.titles(playlist) == ["c", "a", "b"])
            #expect((playlist.value(forKey: "tracks") as? NSOrderedSet)?.count == 3)
            try context.save()
        }
        #expect(try Self.savedTitles(reopen) == ["c", "a", "b"])
        try context.performAndWait {
            let playlist = try #require(try context.fetch(FetchRequest<Playlist>(entityName: "Playlist")).first)
            playlist.tracks = NSOrderedSet(array: playlist.tracks!.array.reversed())
            try context.save()
        }
        #expect(try Self.savedTitles(reopen) == ["b", "a", "c"])
    }

    /// Xcode's generated accessors of an ordered relationship
    /// (`insertIntoTracks(_:at:)`, `removeFromTracks(at:)`,
    /// `replaceTracks(at:with:)`, their `NSIndexSet` forms, `addToTracks`,
    /// `removeFromTracks`) change the order as `NSMutableOrderedSet` does.
    /// <https://developer.apple.com/documentation/foundation/nsmutableorderedset>
    @Test(arguments: StoreKind.allCases) func generatedAccessorsEditTheOrder(store kind: StoreKind) throws {
        let (context, reopen) = try Self.store(kind)
        try context.performAndWait {
            let playlist = Playlist(context: context)
            let t = Dictionary(uniqueKeysWithValues: Self.tracks(["a", "b", "c", "d", "e", "f"], in: context).map { ($0.title!, $0) })
            playlist.addToTracks(t["a"]!)
            playlist.addToTracks(NSOrderedSet(array: [t["b"]!, t["c"]!]))
            #expect(Self.titles(playlist) == ["a", "b", "c"])
            playlist.insertIntoTracks(t["d"]!, at: 0)
            #expect(Self.titles(playlist) == ["d", "a", "b", "c"])
            playlist.insertIntoTracks(t["a"]!, at: 3)   // already there: stays where it is
            #expect(Self.titles(playlist) == ["d", "a", "b", "c"])
            playlist.removeFromTracks(at: 1)
            #expect(Self.titles(playlist) == ["d", "b", "c"])
            #expect(t["a"]!.playlist == nil)
            playlist.replaceTracks(at: 2, with: t["e"]!)
            #expect(Self.titles(playlist) == ["d", "b", "e"])
            #expect(t["c"]!.playlist == nil && t["e"]!.playlist === playlist)
            let positions = NSMutableIndexSet(index: 0)
            positions.add(2)
            playlist.insertIntoTracks([t["f"]!, t["a"]!], at: positions)
            #expect(Self.titles(playlist) == ["f", "d", "a", "b", "e"])
            playlist.removeFromTracks(at: positions)
            #expect(Self.titles(playlist) == ["d", "b", "e"])
            playlist.replaceTracks(at: NSIndexSet(index: 0), with: [t["c"]!])
            playlist.removeFromTracks(t["b"]!)
            #expect(Self.titles(playlist) == ["c", "e"])
            try context.save()
        }
        #expect(try Self.savedTitles(reopen) == ["c", "e"])
    }

    /// Setting the to-one side appends the object at the end of the ordered
    /// side; moving it removes it from its old playlist, deleting it removes
    /// it from the order; the positions of those left are saved.
    @Test(arguments: StoreKind.allCases) func inverseUpkeepKeepsTheOrder(store kind: StoreKind) throws {
        let (context, reopen) = try Self.store(kind)
        try context.performAndWait {
            let first = Playlist(context: context)
            first.name = "first"
            let second = Playlist(context: context)
            second.name = "second"
            let tracks = Self.tracks(["a", "b", "c", "d"], in: context)
            for track in tracks { track.playlist = first }
            #expect(Self.titles(first) == ["a", "b", "c", "d"])
            try context.save()
            tracks[1].playlist = second
            context.delete(tracks[2])
            context.processPendingChanges()
            #expect(Self.titles(first) == ["a", "d"])
            #expect(Self.titles(second) == ["b"])
            first.insertIntoTracks(tracks[1], at: 0)
            #expect(Self.titles(first) == ["b", "a", "d"])
            #expect(Self.titles(second) == [])
            try context.save()
        }
        let reader = try reopen()
        try reader.performAndWait {
            let request = FetchRequest<Playlist>(entityName: "Playlist", predicate: Predicate<Playlist>(format: "name == %@", "first"))
            let first = try #require(try reader.fetch(request).first)
            #expect(Self.titles(first) == ["b", "a", "d"])
            #expect(try reader.count(for: FetchRequest<Track>(entityName: "Track")) == 3)
        }
    }

    /// Changing only the order is a change of the playlist: it is updated,
    /// and didChangeObjects names it.
    @Test func aReorderIsAnUpdate() throws {
        let (context, _) = try Self.store(.inMemory)
        try context.performAndWait {
            let playlist = Playlist(context: context)
            playlist.tracks = NSOrderedSet(array: Self.tracks(["a", "b"], in: context))
            try context.save()
            var updated: Set<ManagedObject> = []
            let token = context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { change in updated = change.updated }
            defer { token.cancel() }
            playlist.tracks = NSOrderedSet(array: playlist.tracks!.array.reversed())
            #expect(playlist.isUpdated)
            #expect(playlist.changedValues().keys.sorted() == ["tracks"])
            context.processPendingChanges()
            #expect(updated.contains(playlist))
            // The same order again is no change.
            try context.save()
            playlist.tracks = NSOrderedSet(array: playlist.tracks!.array)
            #expect(!playlist.hasChanges)
        }
    }

    /// A nested context's reorder reaches its parent, and a context that
    /// merges the parent's saves sees the new order.
    @Test(arguments: StoreKind.allCases) func nestedSavesAndMergesCarryTheOrder(store kind: StoreKind) throws {
        let (context, _) = try Self.store(kind)
        let id = try context.performAndWait {
            let playlist = Playlist(context: context)
            playlist.tracks = NSOrderedSet(array: Self.tracks(["a", "b", "c"], in: context))
            try context.save()
            return playlist.objectID
        }
        let watcher = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator!)
        watcher.automaticallyMergesChangesFromParent = true
        try watcher.performAndWait {
            let playlist = try #require(try watcher.existingObject(with: id) as? Playlist)
            #expect(Self.titles(playlist) == ["a", "b", "c"])
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = context
        try child.performAndWait {
            let playlist = try #require(try child.existingObject(with: id) as? Playlist)
            playlist.removeFromTracks(at: 0)
            playlist.insertIntoTracks(Track(context: child).configured("z"), at: 1)
            #expect(Self.titles(playlist) == ["b", "z", "c"])
            try child.save()
        }
        try context.performAndWait {
            let playlist = try #require(try context.existingObject(with: id) as? Playlist)
            #expect(Self.titles(playlist) == ["b", "z", "c"])
            try context.save()
        }
        try watcher.performAndWait {
            let playlist = try #require(try watcher.existingObject(with: id) as? Playlist)
            #expect(Self.titles(playlist) == ["b", "z", "c"])
        }
    }

    /// A fetch that prefetches the ordered relationship reads it in order.
    @Test(arguments: StoreKind.databases) func prefetchingKeepsTheOrder(store kind: StoreKind) throws {
        let (context, reopen) = try Self.store(kind)
        try context.performAndWait {
            for name in ["one", "two"] {
                let playlist = Playlist(context: context)
                playlist.name = name
                playlist.tracks = NSOrderedSet(array: Self.tracks(["\(name)-z", "\(name)-a", "\(name)-m"], in: context))
            }
            try context.save()
        }
        let reader = try reopen()
        try reader.performAndWait {
            let request = FetchRequest<Playlist>(entityName: "Playlist")
            request.sortDescriptors = [SortDescriptor(key: "name")]
            request.relationshipKeyPathsForPrefetching = ["tracks"]
            let playlists = try reader.fetch(request)
            #expect(playlists.map(Self.titles) == [["one-z", "one-a", "one-m"], ["two-z", "two-a", "two-m"]])
        }
    }
}

extension OrderedRelationshipTests {
    /// The playlist named `name` in `context`.
    static func playlist(_ name: String, in context: ManagedObjectContext) throws -> Playlist {
        let request = FetchRequest<Playlist>(entityName: "Playlist", predicate: Predicate<Playlist>(format: "name == %@", name))
        return try #require(try context.fetch(request).first)
    }

    /// A saved playlist "Mix" of tracks a, b, c, whose keys are in the
    /// reverse order (one save each), so that an order lost in a store
    /// (read back in key order) cannot pass for the saved one.
    static func savedMix(_ kind: StoreKind) throws -> (context: ManagedObjectContext, reopen: () throws -> ManagedObjectContext) {
        let store = try store(kind)
        try store.context.performAndWait {
            var saved: [Track] = []
            for title in ["c", "b", "a"] {
                saved += tracks([title], in: store.context)
                try store.context.save()
            }
            let mix = Playlist(context: store.context)
            mix.name = "Mix"
            mix.tracks = NSOrderedSet(array: saved.reversed())
            try store.context.save()
        }
        return store
    }

    /// An inserted duplicate of a saved playlist (a uniqueness conflict)
    /// gives its tracks to the saved one, after the saved one's, in their
    /// order.
    @Test(arguments: StoreKind.allCases) func aConstraintMergeAppendsTheDuplicatesTracksInOrder(store kind: StoreKind) throws {
        let (context, reopen) = try Self.savedMix(kind)
        let importer = try reopen()
        importer.mergePolicy = .mergeByPropertyObjectTrump
        try importer.performAndWait {
            let duplicate = Playlist(context: importer)
            duplicate.name = "Mix"
            duplicate.tracks = NSOrderedSet(array: Self.tracks(["y", "x"], in: importer))
            try importer.save()
        }
        _ = context
        #expect(try Self.savedTitles(reopen) == ["a", "b", "c", "y", "x"])
    }

    /// A save that meets another writer's change of the same playlist, per
    /// property as Core Data's merge policies merge: the order this context
    /// changed wins under `.mergeByPropertyObjectTrump`, and under
    /// `.mergeByPropertyStoreTrump` unless the store changed the order too;
    /// an order only the other writer changed is taken. The other side's
    /// new members come after.
    @Test(arguments: StoreKind.databases) func conflictsResolveTheOrderByPolicy(store kind: StoreKind) throws {
        let reverse = { (mix: Playlist, _: ManagedObjectContext) in mix.tracks = NSOrderedSet(array: mix.tracks!.array.reversed()) }
        let rename = { (mix: Playlist, _: ManagedObjectContext) in mix.name = "Mix \(UUID())" }
        let append = { (mix: Playlist, context: ManagedObjectContext) in mix.addToTracks(Track(context: context).configured("d")) }
        let cases: [(MergePolicy, theirs: (Playlist, ManagedObjectContext) -> Void, mine: (Playlist, ManagedObjectContext) -> Void, [String])] = [
            (.mergeByPropertyObjectTrump, reverse, rename, ["c", "b", "a"]),
            (.mergeByPropertyObjectTrump, reverse, append, ["a", "b", "c", "d"]),
            (.mergeByPropertyStoreTrump, reverse, append, ["c", "b", "a", "d"]),
            (.mergeByPropertyStoreTrump, rename, reverse, ["c", "b", "a"]),
        ]
        for (number, (policy, theirChange, myChange, expected)) in cases.enumerated() {
            let (_, reopen) = try Self.savedMix(kind)
            let mine = try reopen()
            mine.mergePolicy = policy
            let id = try mine.performAndWait {
                let mix = try Self.playlist("Mix", in: mine)
                _ = Self.titles(mix)   // loaded before the other writer saves
                return mix.objectID
            }
            let theirs = try reopen()
            try theirs.performAndWait {
                theirChange(try Self.playlist("Mix", in: theirs), theirs)
                try theirs.save()
            }
            try mine.performAndWait {
                let mix = try #require(try mine.existingObject(with: id) as? Playlist)
                myChange(mix, mine)
                try mine.save()
                #expect(Self.titles(mix) == expected, "case \(number)")
            }
            #expect(try Self.savedTitles(reopen) == expected, "case \(number)")
        }
    }

    /// A model version that renames the destination entity (renaming ID
    /// `Track`) and the to-one side (renaming ID `playlist`) keeps the saved
    /// order: the position column follows.
    @Test(arguments: StoreKind.databases) func renamingTheInverseKeepsTheOrder(store kind: StoreKind) throws {
        /// The model with the track entity and the to-one side named
        /// `track` and `inverse`, renamed from Track and `playlist` when
        /// `renamed`. Playlist comes first, so its migration is planned
        /// before the track table's rename.
        func model(track: String, inverse: String, renamed: Bool) throws -> ManagedObjectModel {
            let folder = try ModelFileErrorTests.modelFolder("""
                <entity name="Playlist">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="tracks" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="\(track)" inverseName="\(inverse)" inverseEntity="\(track)"/>
                </entity>
                <entity name="\(track)"\(renamed ? " elementID=\"Track\"" : "")>
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="\(inverse)" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Playlist" inverseName="tracks" inverseEntity="Playlist"\(renamed ? " elementID=\"playlist\"" : "")/>
                </entity>
                """)
            return try ManagedObjectModel(contentsOf: folder)
        }
        func context(_ model: ManagedObjectModel, _ description: PersistentStoreDescription) throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(description)
            return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        }
        func titles(_ playlist: ManagedObject) -> [String] {
            ((playlist.value(forKey: "tracks") as? NSOrderedSet)?.array ?? []).map { ($0 as! ManagedObject).value(forKey: "title") as? String ?? "" }
        }
        let description = try kind.makeDescription()
        let old = try context(try model(track: "Track", inverse: "playlist", renamed: false), description)
        try old.performAndWait {
            let playlist = EntityDescription.insertNewObject(forEntityName: "Playlist", into: old)
            var tracks: [ManagedObject] = []
            for title in ["b", "a", "c"] {   // keys in this order, one save each
                let track = EntityDescription.insertNewObject(forEntityName: "Track", into: old)
                track.setValue(title, forKey: "title")
                tracks.append(track)
                try old.save()
            }
            playlist.setValue(NSOrderedSet(array: [tracks[2], tracks[1], tracks[0]]), forKey: "tracks")
            try old.save()
        }
        let current = try context(try model(track: "Song", inverse: "list", renamed: true), description)
        try current.performAndWait {
            let playlist = try #require(try current.fetch(FetchRequest<ManagedObject>(entityName: "Playlist")).first)
            #expect(titles(playlist) == ["c", "a", "b"])
            let track = try #require((playlist.value(forKey: "tracks") as? NSOrderedSet)?.firstObject as? ManagedObject)
            #expect(track.value(forKey: "list") as? ManagedObject === playlist)
        }
    }

    /// Refreshing a moved track without merging puts it back where it was
    /// in its saved playlist, which then has no change; moving a track
    /// back by setting its playlist appends it, as Core Data does.
    @Test(arguments: StoreKind.allCases) func aRefreshRestoresAPositionAndAMoveBackAppends(store kind: StoreKind) throws {
        let (context, _) = try Self.savedMix(kind)
        try context.performAndWait {
            let mix = try Self.playlist("Mix", in: context)
            let other = Playlist(context: context)
            other.name = "Other"
            try context.save()
            let b = mix.tracks![1] as! Track
            b.playlist = other
            #expect(Self.titles(mix) == ["a", "c"])
            context.refresh(b, mergeChanges: false)
            #expect(Self.titles(mix) == ["a", "b", "c"])
            #expect(Self.titles(other) == [])
            #expect(!mix.hasChanges)
            b.playlist = other
            b.playlist = mix
            #expect(Self.titles(mix) == ["a", "c", "b"])
        }
    }

    /// `ordered="YES"` on a to-one relationship is ignored, as Core Data
    /// ignores it.
    @Test func orderedOnAToOneIsIgnored() throws {
        let folder = try ModelFileErrorTests.modelFolder("""
            <entity name="Pamphlet">
                <relationship name="cover" optional="YES" maxCount="1" ordered="YES" deletionRule="Nullify" destinationEntity="Pamphlet" inverseName="cover" inverseEntity="Pamphlet"/>
            </entity>
            """)
        let relationship = try ManagedObjectModel(contentsOf: folder).entitiesByName["Pamphlet"]?.relationship(named: "cover")
        #expect(relationship?.isToMany == false && relationship?.isOrdered == false)
    }

    /// Setting an ordered relationship to a `Set` stops the program, as
    /// Core Data raises for an `NSSet`: a set has no order to keep.
    @Test func aSetForAnOrderedRelationshipStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try OrderedRelationshipTests.store(.inMemory).context
            context.performAndWait {
                let playlist = Playlist(context: context)
                playlist.setValue(Set([Track(context: context)]), forKey: "tracks")
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Playlist.tracks") && message.contains("NSOrderedSet"), "\(message)")
    }

    /// An index beyond the end stops the program naming the entity and the
    /// relationship, as `NSMutableOrderedSet` raises `NSRangeException`.
    @Test func anIndexBeyondTheEndStopsTheProgramNamingTheRelationship() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try OrderedRelationshipTests.store(.inMemory).context
            context.performAndWait {
                let playlist = Playlist(context: context)
                playlist.insertIntoTracks(Track(context: context), at: 1)
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Playlist.tracks") && message.contains("index 1 is beyond the end"), "\(message)")
    }
}

extension Track {
    /// The track with `title`, for building lists inline.
    func configured(_ title: String) -> Track {
        self.title = title
        return self
    }
}
