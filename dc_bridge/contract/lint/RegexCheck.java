// Compiles regular expressions with java.util.regex, the engine Spark's rlike uses.
// Input: one Base64-encoded pattern per line. Output: one line per input, "ok" or the error.
// Run as a single-file program: java RegexCheck.java < patterns
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

public class RegexCheck {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        String line;
        while ((line = in.readLine()) != null) {
            String pattern = new String(Base64.getDecoder().decode(line.trim()), StandardCharsets.UTF_8);
            try {
                Pattern.compile(pattern);
                out.append("ok\n");
            } catch (PatternSyntaxException e) {
                out.append(e.getDescription().replace('\n', ' ')).append(" near index ").append(e.getIndex()).append('\n');
            }
        }
        System.out.print(out);
    }
}
