// A Pairs bot in Java: the card counter of examples/bots/pairs_cautious.py.
//
// It speaks the JSON-lines protocol itself (docs/bots.md): one message per line on stdin,
// one answer per line on stdout, logs on System.err. The JDK has no JSON reader, so a small
// one is below; it keeps each value's text, so the bot answers with a value of "legal"
// exactly as the arena wrote it.
//
// build.sh compiles it (javac) at validation; main starts it (java -cp classes Main).
// Try it:  python manage.py play pairs examples/bots/java_pairs random
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public final class Main {
    /** A JSON value: its text as written, and what this bot reads of it. */
    static final class Json {
        String text = "";
        double number;
        String string;
        final List<Json> items = new ArrayList<>();
        final Map<String, Json> fields = new HashMap<>();

        Json get(String key) {
            return fields.getOrDefault(key, new Json());
        }
    }

    static final class Reader {
        private final String s;
        private int i;

        Reader(String s) {
            this.s = s;
        }

        Json value() {
            space();
            Json out = new Json();
            int begin = i;
            char c = s.charAt(i);
            if (c == '{' || c == '[') {
                char close = c == '{' ? '}' : ']';
                i++;
                while (space() != close) {
                    if (c == '{') {
                        String key = string();
                        space();
                        i++; // ':'
                        out.fields.put(key, value());
                    } else {
                        out.items.add(value());
                    }
                    if (space() == ',') i++;
                }
                i++;
            } else if (c == '"') {
                out.string = string();
            } else {
                while (i < s.length() && ",]} \r\n".indexOf(s.charAt(i)) < 0) i++;
                String word = s.substring(begin, i);
                if (!word.equals("true") && !word.equals("false") && !word.equals("null")) {
                    out.number = Double.parseDouble(word);
                }
            }
            out.text = s.substring(begin, i);
            return out;
        }

        private char space() {
            while (Character.isWhitespace(s.charAt(i))) i++;
            return s.charAt(i);
        }

        private String string() {
            StringBuilder out = new StringBuilder();
            i++; // opening quote
            while (s.charAt(i) != '"') {
                if (s.charAt(i) == '\\') i++;
                out.append(s.charAt(i++));
            }
            i++;
            return out.toString();
        }
    }

    /** "hit" while the expected cost of pairing is below the lowest card in play. */
    static Json choose(Json observation, Json legal) {
        Json hit = null, fold = null;
        for (Json option : legal.items) {
            if ("hit".equals(option.string)) hit = option;
            if ("fold".equals(option.string)) fold = option;
        }
        if (hit == null || fold == null) return legal.items.get(0);
        List<Json> stacks = observation.get("stacks").items;
        List<Json> unseen = observation.get("unseen").items;
        double lowest = Double.MAX_VALUE, total = 0, cost = 0;
        for (Json stack : stacks) for (Json card : stack.items) lowest = Math.min(lowest, card.number);
        for (Json copies : unseen) total += copies.number;
        int seat = (int) observation.get("seat").number;
        if (seat >= stacks.size() || total == 0) return hit;
        for (Json card : stacks.get(seat).items) {
            int rank = (int) card.number;
            if (rank >= 1 && rank <= unseen.size()) cost += unseen.get(rank - 1).number * card.number;
        }
        return cost / total * 1.15 <= lowest ? hit : fold;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            Json message = new Reader(line).value();
            String type = message.get("type").string;
            if ("start".equals(type)) {
                System.out.println("{\"type\":\"ready\"}");
            } else if ("act".equals(type)) {
                Json choice = choose(message.get("observation"), message.get("legal"));
                System.out.println("{\"type\":\"action\",\"action\":" + choice.text + "}");
            } else if ("end".equals(type)) {
                break;
            }
            System.out.flush();
        }
    }
}
