// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.gsroracle;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;

/**
 * Values as JSON, to and from what the serde writes and reads: Avro's generic data and Protobuf's dynamic
 * messages. Records and messages are objects by field name, maps objects, arrays arrays; int, long, float and
 * double numbers of those kinds (a long stays a long in the JSON written); bytes and fixed in base64; enums by
 * symbol. An Avro union takes the first of its branches the value fits; a record's field left out takes its
 * default. A Protobuf field without presence that is left out is at its default, as Protobuf has it; read back,
 * every field of a message is there, null where a field with presence is not set.
 */
final class Values {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private Values() {}

    static Object toAvro(Schema schema, JsonNode value) {
        switch (schema.getType()) {
            case NULL:
                expect(value.isNull(), schema, value);
                return null;
            case BOOLEAN:
                expect(value.isBoolean(), schema, value);
                return value.booleanValue();
            case INT:
                expect(value.isInt(), schema, value);
                return value.intValue();
            case LONG:
                expect(value.isIntegralNumber() && value.canConvertToLong(), schema, value);
                return value.longValue();
            case FLOAT:
                expect(value.isNumber(), schema, value);
                return value.floatValue();
            case DOUBLE:
                expect(value.isNumber(), schema, value);
                return value.doubleValue();
            case STRING:
                expect(value.isTextual(), schema, value);
                return value.textValue();
            case BYTES:
                expect(value.isTextual(), schema, value);
                return ByteBuffer.wrap(Base64.getDecoder().decode(value.textValue()));
            case FIXED:
                expect(value.isTextual(), schema, value);
                return new GenericData.Fixed(schema, Base64.getDecoder().decode(value.textValue()));
            case ENUM:
                expect(value.isTextual() && schema.hasEnumSymbol(value.textValue()), schema, value);
                return new GenericData.EnumSymbol(schema, value.textValue());
            case ARRAY:
                expect(value.isArray(), schema, value);
                List<Object> items = new ArrayList<>();
                value.forEach(item -> items.add(toAvro(schema.getElementType(), item)));
                return items;
            case MAP:
                expect(value.isObject(), schema, value);
                Map<String, Object> entries = new LinkedHashMap<>();
                value.properties().forEach(e -> entries.put(e.getKey(), toAvro(schema.getValueType(), e.getValue())));
                return entries;
            case RECORD:
                expect(value.isObject(), schema, value);
                GenericData.Record record = new GenericData.Record(schema);
                for (Schema.Field field : schema.getFields()) {
                    JsonNode given = value.get(field.name());
                    if (given == null && field.hasDefaultValue()) {
                        record.put(field.pos(), GenericData.get().getDefaultValue(field));
                    } else {
                        record.put(field.pos(), toAvro(field.schema(), given == null ? JSON.nullNode() : given));
                    }
                }
                return record;
            case UNION:
                for (Schema branch : schema.getTypes()) {
                    try {
                        return toAvro(branch, value);
                    } catch (IllegalArgumentException e) {
                        // the next branch
                    }
                }
                throw new IllegalArgumentException("no branch of " + schema + " takes " + value);
            default:
                throw new IllegalArgumentException("Avro type " + schema.getType() + " is not supported");
        }
    }

    static JsonNode fromAvro(Object value) {
        if (value == null) {
            return JSON.nullNode();
        } else if (value instanceof GenericRecord) {
            GenericRecord record = (GenericRecord) value;
            ObjectNode object = JSON.objectNode();
            record.getSchema().getFields().forEach(f -> object.set(f.name(), fromAvro(record.get(f.pos()))));
            return object;
        } else if (value instanceof Map) {
            ObjectNode object = JSON.objectNode();
            ((Map<?, ?>) value).forEach((k, v) -> object.set(k.toString(), fromAvro(v)));
            return object;
        } else if (value instanceof Collection) {
            ArrayNode array = JSON.arrayNode();
            ((Collection<?>) value).forEach(item -> array.add(fromAvro(item)));
            return array;
        } else if (value instanceof CharSequence || value instanceof GenericEnumSymbol) {
            return JSON.textNode(value.toString());
        } else if (value instanceof ByteBuffer) {
            ByteBuffer bytes = ((ByteBuffer) value).duplicate();
            byte[] copy = new byte[bytes.remaining()];
            bytes.get(copy);
            return JSON.textNode(Base64.getEncoder().encodeToString(copy));
        } else if (value instanceof GenericFixed) {
            return JSON.textNode(Base64.getEncoder().encodeToString(((GenericFixed) value).bytes()));
        } else {
            return scalar(value);
        }
    }

    static Message toProtobuf(Descriptors.Descriptor message, JsonNode value) {
        if (!value.isObject()) {
            throw new IllegalArgumentException(message.getFullName() + " takes an object, not " + value);
        }
        DynamicMessage.Builder builder = DynamicMessage.newBuilder(message);
        value.properties().forEach(e -> {
            Descriptors.FieldDescriptor field = message.findFieldByName(e.getKey());
            if (field == null) {
                throw new IllegalArgumentException(message.getFullName() + " has no field " + e.getKey());
            }
            JsonNode given = e.getValue();
            if (given.isNull()) {
                return;
            }
            if (field.isMapField()) {
                Descriptors.Descriptor entry = field.getMessageType();
                Descriptors.FieldDescriptor key = entry.findFieldByName("key");
                Descriptors.FieldDescriptor val = entry.findFieldByName("value");
                given.properties().forEach(kv -> builder.addRepeatedField(field, DynamicMessage.newBuilder(entry)
                        .setField(key, protobufField(key, JSON.textNode(kv.getKey())))
                        .setField(val, protobufField(val, kv.getValue()))
                        .build()));
            } else if (field.isRepeated()) {
                given.forEach(item -> builder.addRepeatedField(field, protobufField(field, item)));
            } else {
                builder.setField(field, protobufField(field, given));
            }
        });
        return builder.build();
    }

    private static Object protobufField(Descriptors.FieldDescriptor field, JsonNode value) {
        switch (field.getJavaType()) {
            case INT:
                return value.isTextual() ? Integer.parseInt(value.textValue()) : value.intValue();
            case LONG:
                return value.isTextual() ? Long.parseLong(value.textValue()) : value.longValue();
            case FLOAT:
                return value.floatValue();
            case DOUBLE:
                return value.doubleValue();
            case BOOLEAN:
                return value.isTextual() ? Boolean.parseBoolean(value.textValue()) : value.booleanValue();
            case STRING:
                return value.textValue();
            case BYTE_STRING:
                return ByteString.copyFrom(Base64.getDecoder().decode(value.textValue()));
            case ENUM:
                Descriptors.EnumValueDescriptor symbol = field.getEnumType().findValueByName(value.textValue());
                if (symbol == null) {
                    throw new IllegalArgumentException(field.getFullName() + " has no value " + value);
                }
                return symbol;
            case MESSAGE:
                return toProtobuf(field.getMessageType(), value);
            default:
                throw new IllegalArgumentException("Protobuf type " + field.getJavaType() + " is not supported");
        }
    }

    static JsonNode fromProtobuf(Message message) {
        ObjectNode object = JSON.objectNode();
        for (Descriptors.FieldDescriptor field : message.getDescriptorForType().getFields()) {
            Object value = message.getField(field);
            if (field.isMapField()) {
                ObjectNode map = JSON.objectNode();
                for (Object entry : (List<?>) value) {
                    Message kv = (Message) entry;
                    Descriptors.Descriptor type = kv.getDescriptorForType();
                    map.set(kv.getField(type.findFieldByName("key")).toString(),
                            protobufValue(kv.getField(type.findFieldByName("value"))));
                }
                object.set(field.getName(), map);
            } else if (field.isRepeated()) {
                ArrayNode array = JSON.arrayNode();
                ((List<?>) value).forEach(item -> array.add(protobufValue(item)));
                object.set(field.getName(), array);
            } else if (field.hasPresence() && !message.hasField(field)) {
                object.set(field.getName(), JSON.nullNode());
            } else {
                object.set(field.getName(), protobufValue(value));
            }
        }
        return object;
    }

    private static JsonNode protobufValue(Object value) {
        if (value instanceof Message) {
            return fromProtobuf((Message) value);
        } else if (value instanceof ByteString) {
            return JSON.textNode(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
        } else if (value instanceof Descriptors.EnumValueDescriptor) {
            return JSON.textNode(((Descriptors.EnumValueDescriptor) value).getName());
        } else if (value instanceof String) {
            return JSON.textNode((String) value);
        } else {
            return scalar(value);
        }
    }

    private static JsonNode scalar(Object value) {
        if (value instanceof Integer) {
            return JSON.numberNode((Integer) value);
        } else if (value instanceof Long) {
            return JSON.numberNode((Long) value);
        } else if (value instanceof Float) {
            return JSON.numberNode((Float) value);
        } else if (value instanceof Double) {
            return JSON.numberNode((Double) value);
        } else if (value instanceof Boolean) {
            return JSON.booleanNode((Boolean) value);
        }
        throw new IllegalArgumentException("no JSON for a " + value.getClass().getName());
    }

    private static void expect(boolean fits, Schema schema, JsonNode value) {
        if (!fits) {
            throw new IllegalArgumentException(schema.getType() + " does not take " + value);
        }
    }
}
