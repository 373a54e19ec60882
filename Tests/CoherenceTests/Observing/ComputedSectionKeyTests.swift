import Coherence
import Foundation
import Testing

/// A contact whose section is a computed property, as Core Data apps write
/// it (`@objc var initial: String` read by name through KVC), offered by
/// name with `value(forUndefinedKey:)` since Linux has no Objective-C runtime.
final class Contact: ManagedObject {
    @Attribute var lastName = ""

    var initial: String { String(lastName.prefix(1)).uppercased() }

    override func value(forUndefinedKey key: String) -> Any? {
        key == "initial" ? initial : super.value(forUndefinedKey: key)
    }
}

// Core Data: "sectionNameKeyPath: A key path on result objects that returns
// the section name", read with key-value coding, so a computed property of the
// class works as well as an attribute:
// https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/init(fetchrequest:managedobjectcontext:sectionnamekeypath:cachename:)
@Suite("Fetched results controller: a computed section key")
@MainActor
struct ComputedSectionKeyTests {
    @Test func sectionsByAComputedPropertyFollowChanges() throws {
        let model = try ManagedObjectModel(entities: [Contact.self])
        let container = PersistentContainer(name: "Contacts", managedObjectModel: model)
        container.persistentStoreDescriptions = [.inMemory]
        try container.loadPersistentStores()
        let context = container.viewContext
        var contacts: [Contact] = []
        for name in ["Baker", "Adams", "Brown", "Clark"] {
            let contact = Contact(context: context)
            contact.lastName = name
            contacts.append(contact)
        }
        try context.save()
        let request = Contact.fetchRequest()
        request.sortDescriptors = [SortDescriptor(key: "lastName", ascending: true)]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "initial")
        let delegate = RecordingDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        #expect(controller.sections?.map(\.name) == ["A", "B", "C"])
        #expect(controller.sections?.map(\.numberOfObjects) == [1, 2, 1])
        #expect(contacts[0].value(forKey: "initial") as? String == "B")

        contacts[3].lastName = "Dunn"                          // section "C" empties, "D" appears
        context.processPendingChanges()
        #expect(controller.sections?.map(\.name) == ["A", "B", "D"])
        #expect(delegate.events.contains("section delete C 2"))
        #expect(delegate.events.contains("section insert D 2"))
    }
}
