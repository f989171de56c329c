// A Pairs bot in C++17: the card counter of examples/bots/pairs_cautious.py.
//
// It speaks the JSON-lines protocol itself (docs/bots.md): one message per line on stdin,
// one answer per line on stdout, logs on std::cerr. The small JSON reader keeps each
// value's text, so the bot answers with a value of "legal" exactly as the arena wrote it.
//
// Build: build.sh (g++ -O2 -std=c++17 -o main main.cpp), run at validation in the sandbox.
// Try it:  python manage.py play pairs examples/bots/cpp_pairs random
#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct Json {
    std::string text;                    // the value as written
    double number = 0;
    std::string string;                  // unescaped only as far as this bot needs
    std::vector<Json> items;             // array elements
    std::map<std::string, Json> fields;  // object members

    const Json& operator[](const std::string& key) const {
        static const Json missing;
        auto found = fields.find(key);
        return found == fields.end() ? missing : found->second;
    }
};

class Reader {
  public:
    explicit Reader(const std::string& line) : s_(line) {}
    Json value() {
        space();
        Json out;
        size_t begin = i_;
        char c = peek();
        if (c == '{') {
            ++i_;
            while (space(), peek() != '}') {
                std::string key = string_value();
                space();
                expect(':');
                out.fields[key] = value();
                space();
                if (peek() == ',') ++i_;
            }
            ++i_;
        } else if (c == '[') {
            ++i_;
            while (space(), peek() != ']') {
                out.items.push_back(value());
                space();
                if (peek() == ',') ++i_;
            }
            ++i_;
        } else if (c == '"') {
            out.string = string_value();
        } else {
            while (i_ < s_.size() && std::string(",]} \r\n").find(s_[i_]) == std::string::npos) ++i_;
            std::string word = s_.substr(begin, i_ - begin);
            if (word.empty()) throw std::runtime_error("bad JSON");
            if (word != "true" && word != "false" && word != "null") out.number = std::stod(word);
        }
        out.text = s_.substr(begin, i_ - begin);
        return out;
    }

  private:
    const std::string& s_;
    size_t i_ = 0;
    char peek() const {
        if (i_ >= s_.size()) throw std::runtime_error("truncated JSON");
        return s_[i_];
    }
    void space() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    void expect(char c) {
        if (peek() != c) throw std::runtime_error("bad JSON");
        ++i_;
    }
    std::string string_value() {
        expect('"');
        std::string out;
        while (peek() != '"') {
            if (s_[i_] == '\\') ++i_;
            out += s_[i_++];
        }
        ++i_;
        return out;
    }
};

// "hit" while the expected cost of pairing is below the lowest card in play, else "fold".
const Json& choose(const Json& obs, const Json& legal) {
    const Json *hit = nullptr, *fold = nullptr;
    for (const Json& option : legal.items) {
        if (option.string == "hit") hit = &option;
        if (option.string == "fold") fold = &option;
    }
    if (!hit || !fold) return legal.items.front();
    const auto& stacks = obs["stacks"].items;
    const auto& unseen = obs["unseen"].items;
    double lowest = 1e9, total = 0, cost = 0;
    for (const Json& stack : stacks)
        for (const Json& card : stack.items) lowest = std::min(lowest, card.number);
    for (const Json& copies : unseen) total += copies.number;
    size_t seat = static_cast<size_t>(obs["seat"].number);
    if (seat >= stacks.size() || total == 0) return *hit;
    for (const Json& card : stacks[seat].items) {
        size_t rank = static_cast<size_t>(card.number);
        if (rank >= 1 && rank <= unseen.size()) cost += unseen[rank - 1].number * card.number;
    }
    return cost / total * 1.15 <= lowest ? *hit : *fold;
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        Json message = Reader(line).value();
        const std::string& type = message["type"].string;
        if (type == "start") {
            std::cout << "{\"type\":\"ready\"}" << std::endl;  // endl flushes: the arena waits
        } else if (type == "act") {
            const Json& choice = choose(message["observation"], message["legal"]);
            std::cout << "{\"type\":\"action\",\"action\":" << choice.text << "}" << std::endl;
        } else if (type == "end") {
            break;
        }
    }
    return 0;
}
