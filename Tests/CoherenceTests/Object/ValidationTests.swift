import Coherence
import Foundation
import Testing

/// Core Data's validation methods, called at save: `validateForInsert()` for
/// inserted objects, `validateForUpdate()` for updated ones,
/// `validateForDelete()` for deleted ones, each of which (by default) calls
/// `validateValue(_:forKey:)` per property; several errors are reported as
/// one aggregate error listing them (NSValidationMultipleErrorsError with
/// NSDetailedErrorsKey).
/// https://developer.apple.com/documentation/coredata/nsmanagedobject/validateforinsert()
/// https://developer.apple.com/documentation/coredata/nsmanagedobject/validateforupdate()
/// https://developer.apple.com/documentation/coredata/nsmanagedobject/validatefordelete()
/// https://developer.apple.com/documentation/coredata/nsmanagedobject/validatevalue(_:forkey:)
@Suite("Validation methods")
struct ValidationTests {
    enum EventError: Error, Equatable {
        case endsBeforeStart
        case emptyTitle
        case stillPublished
    }

    /// Calls, in order, across all events of a test (one context's queue).
    final class CallLog: @unchecked Sendable {
        var calls: [String] = []
    }

    /// Each context's log; tests run in parallel.
    final class Logs: @unchecked Sendable {
        private let lock = NSLock()
        private var logs: [ObjectIdentifier: CallLog] = [:]

        func log(for context: ManagedObjectContext) -> CallLog? {
            lock.withLock { logs[ObjectIdentifier(context)] }
        }

        func set(_ log: CallLog, for context: ManagedObjectContext) {
            lock.withLock { logs[ObjectIdentifier(context)] = log }
        }
    }

    final class Event: ManagedObject {
        @Attribute var title = ""
        @Attribute var start = 0
        @Attribute var end = 0
        @Attribute var published = false
        @Attribute var note: String?
        @Relationship(inverse: \Ticket.event, deleteRule: .deny) var tickets: Set<Ticket>

        var log: CallLog? { managedObjectContext.flatMap { Event.logs.log(for: $0) } }
        static let logs = Logs()

        override func willSave() { log?.calls.append("willSave \(title)") }

        override func validateForInsert() throws {
            log?.calls.append("validateForInsert \(title)")
            try combine(super.validateForInsert)
        }

        override func validateForUpdate() throws {
            log?.calls.append("validateForUpdate \(title)")
            try combine(super.validateForUpdate)
        }

        override func validateForDelete() throws {
            log?.calls.append("validateForDelete \(title)")
            try super.validateForDelete()
            if published { throw EventError.stillPublished }
        }

        override func validateValue(_ value: inout Any?, forKey key: String) throws {
            log?.calls.append("validateValue \(title).\(key)")
            try super.validateValue(&value, forKey: key)
            if key == "title", (value as? String)?.isEmpty == true { throw EventError.emptyTitle }
        }

        /// Core Data's pattern: super's errors, then this class's own.
        private func combine(_ superValidation: () throws -> Void) throws {
            var errors: [ValidationError] = []
            do { try superValidation() } catch let error as ValidationError { errors = error.errors }
            if end < start { errors.append(.rejected(entity: "Event", property: nil, error: EventError.endsBeforeStart)) }
            if errors.count == 1 { throw errors[0] }
            if !errors.isEmpty { throw ValidationError.multiple(errors) }
        }
    }

    final class Ticket: ManagedObject {
        @Attribute var seat: Int
        @Relationship var event: Event?
    }

    /// A class whose override does not call `super`.
    final class Careless: ManagedObject {
        @Attribute var code: String
        override func validateForInsert() throws {}
    }

    static func context(_ store: StoreKind) throws -> (ManagedObjectContext, PersistentStoreCoordinator, CallLog) {
        let model = try ManagedObjectModel(entities: [Event.self, Ticket.self, Careless.self])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let log = CallLog()
        Event.logs.set(log, for: context)
        return (context, coordinator, log)
    }

    static func count(_ coordinator: PersistentStoreCoordinator) throws -> Int {
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        return try reader.performAndWait { try reader.count(for: FetchRequest<Event>()) }
    }

    @Test(arguments: StoreKind.allCases) func aSaveCallsEachMethodForItsKindOfChangeAfterWillSave(store: StoreKind) throws {
        let (context, _, log) = try Self.context(store)
        try context.performAndWait {
            let kept = Event(context: context)
            kept.title = "kept"
            let gone = Event(context: context)
            gone.title = "gone"
            try context.save()
            log.calls = []

            kept.note = "moved"
            context.delete(gone)
            let added = Event(context: context)
            added.title = "added"
            try context.save()
            let order = log.calls.filter { !$0.hasPrefix("validateValue") }
            #expect(order.filter { $0.hasPrefix("willSave") }.count == 3)
            #expect(order.firstIndex { $0.hasPrefix("validateFor") }! > order.lastIndex { $0.hasPrefix("willSave") }!,
                    "validation comes after every willSave()")
            #expect(order.filter { $0.hasPrefix("validateFor") } == [
                "validateForInsert added", "validateForUpdate kept", "validateForDelete gone",
            ])
            // validateValue runs for each attribute of inserted and updated
            // objects (the default implementation calls it), not for deleted
            // ones; for relationships, of an updated object only the changed.
            #expect(log.calls.contains("validateValue added.title"))
            #expect(log.calls.contains("validateValue added.tickets"))
            #expect(log.calls.contains("validateValue kept.note"))
            #expect(log.calls.contains("validateValue kept.title"))
            #expect(!log.calls.contains("validateValue kept.tickets"))
            #expect(!log.calls.contains("validateValue gone.title"))
        }
    }

    @Test(arguments: StoreKind.allCases) func anErrorFromValidateForInsertFailsTheSaveWithNothingWritten(store: StoreKind) throws {
        let (context, coordinator, _) = try Self.context(store)
        try context.performAndWait {
            let good = Event(context: context)
            good.title = "good"
            let bad = Event(context: context)
            bad.title = "bad"
            bad.start = 10
            bad.end = 5
            // Core Data hands the caller the error validateForInsert threw.
            #expect(throws: EventError.endsBeforeStart) {
                try context.save()
            }
            #expect(try Self.count(coordinator) == 0, "nothing written, not even the valid object")
            #expect(context.insertedObjects == [good, bad], "the changes stay pending")
            bad.end = 20
            try context.save()
            #expect(try Self.count(coordinator) == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func errorsOfSeveralObjectsAndPropertiesAreReportedTogether(store: StoreKind) throws {
        let (context, coordinator, _) = try Self.context(store)
        try context.performAndWait {
            let first = Event(context: context)
            first.start = 3
            first.end = 1
            let second = Event(context: context)
            second.title = "second"
            let error = try #require(throws: ValidationError.self) { try context.save() }
            guard case .multiple(let errors) = error else {
                Issue.record("expected the aggregate error, got \(error)")
                return
            }
            // The first object fails twice (its empty title, its dates); the
            // second, titled, passes. validateValue's error names the key.
            #expect(Set(errors) == [
                .rejected(entity: "Event", property: "title", error: EventError.emptyTitle),
                .rejected(entity: "Event", property: nil, error: EventError.endsBeforeStart),
            ])
            #expect(errors.count == 2)
            #expect(error.description.contains("Event.title failed its validation"))
            // Core Data code reads the aggregate through NSError.
            // https://developer.apple.com/documentation/coredata/nsvalidationmultipleerrorserror
            let nsError = error as NSError
            #expect(nsError.domain == NSCocoaErrorDomain)
            #expect(nsError.code == NSValidationMultipleErrorsError)
            let detailed = nsError.userInfo[NSDetailedErrorsKey] as! [any Error]
            #expect(Set(detailed.compactMap { $0 as? EventError }) == [.emptyTitle, .endsBeforeStart], "each as thrown")
            #expect(try Self.count(coordinator) == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func validateForUpdateAndDeleteCanRefuseASave(store: StoreKind) throws {
        let (context, coordinator, _) = try Self.context(store)
        try context.performAndWait {
            let event = Event(context: context)
            event.title = "launch"
            event.published = true
            try context.save()

            event.end = -1
            #expect(throws: EventError.endsBeforeStart) {
                try context.save()
            }
            event.end = 0
            context.delete(event)
            #expect(throws: EventError.stillPublished) {
                try context.save()
            }
            #expect(try Self.count(coordinator) == 1, "the refused deletion wrote nothing")
            context.rollback()
            event.published = false
            context.delete(event)
            try context.save()
            #expect(try Self.count(coordinator) == 0)
        }
    }

    /// Core Data code calls the methods directly too, for example to ask
    /// before deleting whether a deletion would be allowed.
    @Test func theDefaultImplementationsCheckTheModelWhenCalledDirectly() throws {
        let (context, _, _) = try Self.context(.inMemory)
        try context.performAndWait {
            let event = Event(context: context)
            event.title = "concert"
            let ticket = Ticket(context: context)
            ticket.event = event
            #expect(throws: ValidationError.missingValue(entity: "Ticket", property: "seat")) {
                try ticket.validateForInsert()
            }
            var value: Any? = nil
            #expect(throws: ValidationError.missingValue(entity: "Ticket", property: "seat")) {
                try ticket.validateValue(&value, forKey: "seat")
            }
            var note: Any? = nil
            try event.validateValue(&note, forKey: "note") // optional: nil is valid
            #expect(throws: ValidationError.deleteDenied(entity: "Event", property: "tickets")) {
                try event.validateForDelete()
            }
            ticket.seat = 12
            try ticket.validateForInsert()
            try context.save()
        }
    }

    @Test(arguments: StoreKind.allCases) func aSaveChecksRequiredValuesEvenIfAnOverrideSkipsSuper(store: StoreKind) throws {
        let (context, _, _) = try Self.context(store)
        context.performAndWait {
            _ = Careless(context: context)
            #expect(throws: ValidationError.missingValue(entity: "Careless", property: "code")) {
                try context.save()
            }
        }
    }

    /// The save's own check of the deny rule and the default
    /// validateForDelete() report a refused deletion once, not twice.
    @Test func aDeniedDeletionIsReportedOnce() throws {
        let (context, _, _) = try Self.context(.inMemory)
        context.performAndWait {
            let event = Event(context: context)
            event.title = "x"
            let ticket = Ticket(context: context)
            ticket.seat = 1
            ticket.event = event
            #expect(throws: Never.self) { try context.save() }
            context.delete(event) // the deny rule refuses it
            #expect(throws: ValidationError.deleteDenied(entity: "Event", property: "tickets")) {
                try context.save()
            }
        }
    }
}
