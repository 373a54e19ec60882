import Foundation
import Observation

// The accessors the property macros generate call these: `get` calls
// `_read(__Coherence_title.declaration)`, `set` calls
// `_write(__Coherence_title.declaration, newValue)`. Inlinable, so that a
// read of a loaded object that wrote nothing is, in a release build: a
// test of the object's access flags, the declaration's word, the value's
// null bit, and the word converted for the property's type
// (`AttributeDeclaration.decode(word:kind:)`). Any other read takes the
// value from the buffer or the snapshot (`_currentValue(at:)`) out of line.
extension ManagedObject {
    /// Reads an attribute (or a derived one). For the `@Attribute` and
    /// `@Derived` macros; not for your code.
    @inlinable
    public final func _read<Value>(_ declaration: AttributeDeclaration<Value>) -> Value {
        if _needsAccessCheck { _prepareForRead(declaration) }
        // The declaration's atomics are read before the snapshot, so that
        // nothing between the snapshot's load and its last use keeps the
        // optimizer from reading it without a retain.
        let word = declaration.snapshotWord, position = declaration.position
        if word >= 0, _values.isEmpty, let bits = _base?._word(word >> 3, position: position),
           let value = declaration.decode(word: bits, kind: word & 7) {
            return value
        }
        return _readCurrentValue(declaration, at: position)
    }

    /// What a read takes when its value is not in its snapshot's word: out
    /// of line, so that the accessor's fast path needs no stack frame.
    @inlinable @inline(never)
    final func _readCurrentValue<Value>(_ declaration: AttributeDeclaration<Value>, at position: Int) -> Value {
        declaration.decode(_currentValue(at: position), object: self)
    }

    /// Writes an attribute. For the `@Attribute` macro; not for your code.
    @inlinable
    public final func _write<Value>(_ declaration: AttributeDeclaration<Value>, _ newValue: Value) {
        let index = declaration.position
        _prepareForWrite(declaration)
        let stored = declaration.encode(newValue, object: self)
        if let box = _observation {
            box.registrar.withMutation(of: self, keyPath: declaration._observationKey) { _setCurrentValue(stored, at: index) }
        } else {
            _setCurrentValue(stored, at: index)
        }
    }

    /// Reads a relationship. For the `@Relationship` macro; not for your code.
    public final func _read<Value>(_ declaration: RelationshipDeclaration<Value>) -> Value {
        if _needsAccessCheck { _prepareForRead(declaration) }
        guard let entity = _entity else {
            // Never inserted: no relationship can have been set.
            return Value._makeValue([])
        }
        let index = entity.attributes.count + declaration.position
        return Value._makeValue(_resolve(_currentValue(at: index) ?? .null, index: index, entity: entity))
    }

    /// Writes a relationship, keeping its inverse in step. For the
    /// `@Relationship` macro; not for your code.
    public final func _write<Value>(_ declaration: RelationshipDeclaration<Value>, _ newValue: Value) {
        guard let entity = _entity else {
            fatalError("Coherence: insert this \(Self.entityName) into a context before setting its relationship \(declaration.name)")
        }
        let index = entity.attributes.count + declaration.position
        if let box = _observation {
            box.registrar.withMutation(of: self, keyPath: declaration._observationKey) {
                _setRelationship(index: index, to: newValue._relatedObjects)
            }
        } else {
            _setRelationship(index: index, to: newValue._relatedObjects)
        }
    }

    /// The entity's name for error messages: the object's entity if it has
    /// one, otherwise its class's.
    @usableFromInline
    final var entityNameForMessages: String { _entity?.name ?? Self.entityName }
}
