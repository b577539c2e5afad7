// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.gsroracle;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import com.amazonaws.services.schemaregistry.deserializers.GlueSchemaRegistryKafkaDeserializer;
import com.amazonaws.services.schemaregistry.deserializers.protobuf.ProtobufSchemaParser;
import com.amazonaws.services.schemaregistry.serializers.GlueSchemaRegistryKafkaSerializer;
import com.amazonaws.services.schemaregistry.serializers.json.JsonDataWithSchema;
import com.amazonaws.services.schemaregistry.serializers.json.JsonSerializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;

/**
 * AWS' own Java serde of the Glue Schema Registry ({@code software.amazon.glue:schema-registry-serde}) as an
 * outside oracle of the connector's registry functions. A program of its own, run by the connector's tests
 * (GlueSerdeOracleSuite) in a JVM of its own: the serde's dependencies (Kafka's clients, two AWS SDKs, Kotlin,
 * Wire, a Scala 2.12 library) must not meet Spark's.
 *
 * <pre>
 *   java -cp &lt;the serde's class path&gt; io.github.sparkkinesis.gsroracle.GsrOracle &lt;endpoint&gt; &lt;region&gt;
 * </pre>
 *
 * The registry is the Glue endpoint given (a test server on loopback), with the credentials of
 * AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. It reads one JSON command a line from standard input and
 * answers each with one JSON line on standard output, until standard input ends; it writes nothing else there
 * (what the libraries print goes to standard error):
 *
 * <pre>
 *   {"command": "serialize", "registry": R, "schemaName": S, "dataFormat": "AVRO" | "JSON" | "PROTOBUF",
 *    "definition": TEXT, "compression": "NONE" | "ZLIB", "records": [VALUE, ...]}
 *     -&gt; {"records": [BASE64, ...]}   each value written by the serde's serializer, which registers the
 *                                      definition as a version of S (creating S) if the registry has none alike
 *   {"command": "deserialize", "records": [BASE64, ...]}
 *     -&gt; {"records": [{"schemaVersionId": ID, "value": VALUE}, ...]}   as the serde's deserializer reads them;
 *        a JSON record is also checked against its version's JSON Schema, as the serializer checks what it writes
 *   a command that fails
 *     -&gt; {"error": MESSAGE}
 * </pre>
 *
 * A value is JSON as {@link Values} maps it. The definition of a Protobuf schema is the text of a .proto file;
 * its first message is written unless "message" names another. Single-threaded.
 */
public final class GsrOracle {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final String endpoint;
    private final String region;
    private final AwsCredentialsProvider credentials = EnvironmentVariableCredentialsProvider.create();
    private GlueSchemaRegistryKafkaDeserializer deserializer;
    private final JsonSerializer jsonValidator = new JsonSerializer(null);

    private GsrOracle(String endpoint, String region) {
        this.endpoint = endpoint;
        this.region = region;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: GsrOracle <glue endpoint> <region>");
            System.exit(2);
        }
        // Standard output carries the answers alone: whatever a library prints goes to standard error.
        PrintStream answers = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        GsrOracle oracle = new GsrOracle(args[0], args[1]);
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = commands.readLine(); line != null; line = commands.readLine()) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode answer;
            try {
                answer = oracle.answer(MAPPER.readTree(line));
            } catch (Exception e) {
                answer = MAPPER.createObjectNode().put("error", describe(e));
            }
            answers.println(MAPPER.writeValueAsString(answer));
            answers.flush();
        }
    }

    private JsonNode answer(JsonNode command) throws Exception {
        String name = text(command, "command");
        switch (name) {
            case "serialize":
                return serialize(command);
            case "deserialize":
                return deserialize(command);
            default:
                throw new IllegalArgumentException("unknown command " + name + ": serialize or deserialize");
        }
    }

    /** The serializer a producer of schema `schemaName` would configure, registering versions itself. */
    private JsonNode serialize(JsonNode command) throws Exception {
        String dataFormat = text(command, "dataFormat");
        String definition = text(command, "definition");
        Map<String, Object> configs = registryConfigs();
        configs.put("registry.name", text(command, "registry"));
        configs.put("schemaName", text(command, "schemaName"));
        configs.put("dataFormat", dataFormat);
        configs.put("schemaAutoRegistrationEnabled", "true");
        configs.put("compression", command.path("compression").asText("NONE"));
        GlueSchemaRegistryKafkaSerializer serializer = new GlueSchemaRegistryKafkaSerializer(credentials, configs);
        Descriptors.Descriptor message = dataFormat.equals("PROTOBUF") ? protobufMessage(command) : null;
        Schema avro = dataFormat.equals("AVRO") ? new Schema.Parser().parse(definition) : null;
        ArrayNode written = MAPPER.createArrayNode();
        for (JsonNode value : command.path("records")) {
            Object data;
            switch (dataFormat) {
                case "AVRO":
                    data = Values.toAvro(avro, value);
                    break;
                case "JSON":
                    data = JsonDataWithSchema.builder(definition, MAPPER.writeValueAsString(value)).build();
                    break;
                case "PROTOBUF":
                    data = Values.toProtobuf(message, value);
                    break;
                default:
                    throw new IllegalArgumentException("unknown dataFormat " + dataFormat);
            }
            written.add(Base64.getEncoder().encodeToString(serializer.serialize("oracle", data)));
        }
        serializer.close();
        ObjectNode answer = MAPPER.createObjectNode();
        answer.set("records", written);
        return answer;
    }

    /** The message of the command's .proto text that its records are: "message", or else the first. */
    private static Descriptors.Descriptor protobufMessage(JsonNode command) throws Exception {
        Descriptors.FileDescriptor file =
                ProtobufSchemaParser.parse(text(command, "definition"), text(command, "schemaName") + ".proto");
        if (!command.has("message")) {
            return file.getMessageTypes().get(0);
        }
        Descriptors.Descriptor named = file.findMessageTypeByName(command.get("message").asText());
        if (named == null) {
            throw new IllegalArgumentException("no message " + command.get("message").asText() + " in the definition");
        }
        return named;
    }

    /** The deserializer a consumer would configure: Avro as generic records, Protobuf as dynamic messages. */
    private JsonNode deserialize(JsonNode command) {
        if (deserializer == null) {
            Map<String, Object> configs = registryConfigs();
            configs.put("avroRecordType", "GENERIC_RECORD");
            configs.put("protobufMessageType", "DYNAMIC_MESSAGE");
            deserializer = new GlueSchemaRegistryKafkaDeserializer(credentials, configs);
        }
        ArrayNode read = MAPPER.createArrayNode();
        for (JsonNode record : command.path("records")) {
            byte[] bytes = Base64.getDecoder().decode(record.asText());
            Object data = deserializer.deserialize("oracle", bytes);
            JsonNode value;
            if (data instanceof GenericRecord) {
                value = Values.fromAvro(data);
            } else if (data instanceof JsonDataWithSchema) {
                // The deserializer reads any JSON; the serializer's check that it is valid for the version too.
                jsonValidator.validate(data);
                value = readTree(((JsonDataWithSchema) data).getPayload());
            } else if (data instanceof Message) {
                value = Values.fromProtobuf((Message) data);
            } else {
                throw new IllegalStateException("the deserializer returned a " + data.getClass().getName());
            }
            // Bytes 2 to 17 of the header: the id of the version the record was written with.
            ByteBuffer header = ByteBuffer.wrap(bytes, 2, 16);
            ObjectNode entry = MAPPER.createObjectNode();
            entry.put("schemaVersionId", new UUID(header.getLong(), header.getLong()).toString());
            entry.set("value", value);
            read.add(entry);
        }
        ObjectNode answer = MAPPER.createObjectNode();
        answer.set("records", read);
        return answer;
    }

    private Map<String, Object> registryConfigs() {
        Map<String, Object> configs = new HashMap<>();
        configs.put("endpoint", endpoint);
        configs.put("region", region);
        return configs;
    }

    private static JsonNode readTree(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException("the deserializer returned JSON that does not parse", e);
        }
    }

    private static String text(JsonNode command, String field) {
        JsonNode value = command.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("the command needs \"" + field + "\" (text)");
        }
        return value.asText();
    }

    /** The exception and its causes, each as its class and message. */
    private static String describe(Throwable e) {
        StringBuilder text = new StringBuilder(e.toString());
        Throwable cause = e.getCause();
        for (int depth = 0; cause != null && depth < 8; depth++, cause = cause.getCause()) {
            text.append("; caused by ").append(cause);
        }
        return text.toString();
    }
}
