<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>ArchiveDialogs</name>
    <message>
        <source>Kernel archives (*.kxdb);;All files (*)</source>
        <translation>Kernel-Archive (*.kxdb);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>New Archive</source>
        <translation>Neues Archiv</translation>
    </message>
</context>
<context>
    <name>kx::ui::ApiKeyEditor</name>
    <message>
        <source>&amp;Environment variable:</source>
        <translation>&amp;Umgebungsvariable:</translation>
    </message>
    <message>
        <source>System &amp;keychain:</source>
        <translation>System-&amp;Schlüsselbund:</translation>
    </message>
    <message>
        <source>&amp;Save Key</source>
        <translation>Schlüssel &amp;speichern</translation>
    </message>
    <message>
        <source>Remo&amp;ve Key</source>
        <translation>Schlüssel &amp;entfernen</translation>
    </message>
    <message>
        <source>The environment variable that holds the key; only its name is saved</source>
        <translation>Die Umgebungsvariable, die den Schlüssel enthält; gespeichert wird nur ihr Name</translation>
    </message>
    <message>
        <source>paste a key</source>
        <translation>Schlüssel einfügen</translation>
    </message>
    <message>
        <source>Saved in the system keychain, never in the settings or the archive; without a keychain it is kept for this session only</source>
        <translation>Wird im System-Schlüsselbund gespeichert, nie in den Einstellungen oder im Archiv; ohne Schlüsselbund gilt er nur für diese Sitzung</translation>
    </message>
    <message>
        <source>No system keychain is available</source>
        <translation>Kein System-Schlüsselbund verfügbar</translation>
    </message>
    <message>
        <source>Looking in the system keychain…</source>
        <translation>Suche im System-Schlüsselbund …</translation>
    </message>
    <message>
        <source>An API key is kept for this session only: no system keychain could store it.</source>
        <translation>Ein API-Schlüssel gilt nur für diese Sitzung: Kein System-Schlüsselbund konnte ihn speichern.</translation>
    </message>
    <message>
        <source>An API key is saved in the system keychain.</source>
        <translation>Ein API-Schlüssel ist im System-Schlüsselbund gespeichert.</translation>
    </message>
    <message>
        <source>No API key is saved in the system keychain yet.</source>
        <translation>Im System-Schlüsselbund ist noch kein API-Schlüssel gespeichert.</translation>
    </message>
    <message>
        <source>Saving the key in the system keychain…</source>
        <translation>Der Schlüssel wird im System-Schlüsselbund gespeichert …</translation>
    </message>
    <message>
        <source>No system keychain is available%1: the API key is kept for this session only and has to be entered again after a restart.</source>
        <translation>Kein System-Schlüsselbund verfügbar%1: Der API-Schlüssel gilt nur für diese Sitzung und muss nach einem Neustart erneut eingegeben werden.</translation>
    </message>
    <message>
        <source>The API key is saved in the system keychain.</source>
        <translation>Der API-Schlüssel ist im System-Schlüsselbund gespeichert.</translation>
    </message>
    <message>
        <source>No API key is saved in the system keychain.</source>
        <translation>Im System-Schlüsselbund ist kein API-Schlüssel gespeichert.</translation>
    </message>
</context>
<context>
    <name>kx::ui::ArchiveSession</name>
    <message>
        <source>The file &quot;%1&quot; does not exist.</source>
        <translation>Die Datei „%1“ existiert nicht.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a file.</source>
        <translation>„%1“ ist keine Datei.</translation>
    </message>
    <message>
        <source>The file &quot;%1&quot; cannot be read.</source>
        <translation>Die Datei „%1“ kann nicht gelesen werden.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; already exists. Choose another name, or open it instead.</source>
        <translation>„%1“ existiert bereits. Wählen Sie einen anderen Namen oder öffnen Sie die Datei.</translation>
    </message>
    <message>
        <source>The folder &quot;%1&quot; cannot be created.</source>
        <translation>Der Ordner „%1“ kann nicht angelegt werden.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; cannot be opened as an archive: %2</source>
        <translation>„%1“ kann nicht als Archiv geöffnet werden: %2</translation>
    </message>
    <message>
        <source>No archive is open.</source>
        <translation>Es ist kein Archiv geöffnet.</translation>
    </message>
    <message>
        <source>The archive is open read-only.</source>
        <translation>Das Archiv ist schreibgeschützt geöffnet.</translation>
    </message>
    <message>
        <source>Unknown reason &quot;%1&quot;.</source>
        <translation>Unbekannter Grund „%1“.</translation>
    </message>
    <message>
        <source>The candidate %1 is not in the archive.</source>
        <translation>Der Kandidat %1 ist nicht im Archiv.</translation>
    </message>
</context>
<context>
    <name>kx::ui::ArchiveStatusWidget</name>
    <message>
        <source>Read-only</source>
        <translation>Schreibgeschützt</translation>
    </message>
    <message>
        <source>The archive is open for browsing only; nothing can be written to it.</source>
        <translation>Das Archiv ist nur zum Ansehen geöffnet; es kann nichts hineingeschrieben werden.</translation>
    </message>
    <message>
        <source>No archive open</source>
        <translation>Kein Archiv geöffnet</translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation>nicht lesbar</translation>
    </message>
    <message>
        <source>Kernels: %1 · Evaluations: %2 · GPUs: %3</source>
        <translation>Kernels: %1 · Bewertungen: %2 · GPUs: %3</translation>
    </message>
    <message>
        <source>Ops: %1 · Runs: %2 · Verdicts: %3 · Schema version %4 · %5</source>
        <translation>Ops: %1 · Läufe: %2 · Urteile: %3 · Schemaversion %4 · %5</translation>
    </message>
</context>
<context>
    <name>kx::ui::AssemblyLoader</name>
    <message>
        <source>This build has no NVRTC (the CUDA toolkit was missing when it was built).</source>
        <translation>Dieser Build enthält kein NVRTC (das CUDA-Toolkit fehlte beim Erstellen).</translation>
    </message>
    <message>
        <source>No SASS: neither cuobjdump nor nvdisasm was found (searched %1).</source>
        <translation>Kein SASS: Weder cuobjdump noch nvdisasm wurde gefunden (durchsucht: %1).</translation>
    </message>
    <message>
        <source>No SASS: %1.</source>
        <translation>Kein SASS: %1.</translation>
    </message>
</context>
<context>
    <name>kx::ui::BaselineFormat</name>
    <message>
        <source>beats eager and Inductor</source>
        <translation>schlägt Eager und Inductor</translation>
    </message>
    <message>
        <source>beats eager, loses to Inductor</source>
        <translation>schlägt Eager, unterliegt Inductor</translation>
    </message>
    <message>
        <source>loses to eager, beats Inductor</source>
        <translation>unterliegt Eager, schlägt Inductor</translation>
    </message>
    <message>
        <source>loses to eager and Inductor</source>
        <translation>unterliegt Eager und Inductor</translation>
    </message>
    <message>
        <source>beats eager (no Inductor time)</source>
        <translation>schlägt Eager (keine Inductor-Zeit)</translation>
    </message>
    <message>
        <source>loses to eager (no Inductor time)</source>
        <translation>unterliegt Eager (keine Inductor-Zeit)</translation>
    </message>
    <message>
        <source>fp32: no TF32 anywhere (candidates, eager PyTorch and Inductor alike); the op&apos;s own tolerance.</source>
        <translation>fp32: nirgends TF32 (weder in Kandidaten noch in Eager-PyTorch oder Inductor); die eigene Toleranz der Op.</translation>
    </message>
    <message>
        <source>tf32: candidates may use TF32 tensor cores, and eager PyTorch and Inductor run with TF32 allowed in cuBLAS and cuDNN, so the comparison stays fair; the tolerance widens with the reduction length.</source>
        <translation>tf32: Kandidaten dürfen TF32-Tensor-Cores nutzen, und Eager-PyTorch und Inductor laufen mit in cuBLAS und cuDNN erlaubtem TF32, damit der Vergleich fair bleibt; die Toleranz wächst mit der Reduktionslänge.</translation>
    </message>
    <message>
        <source>kernelbench: KernelBench&apos;s own check (atol = rtol = 1e-2) with TF32 allowed, to compare with published results.</source>
        <translation>kernelbench: die Prüfung von KernelBench (atol = rtol = 1e-2) mit erlaubtem TF32, zum Vergleich mit veröffentlichten Ergebnissen.</translation>
    </message>
    <message>
        <source>eager</source>
        <translation>Eager</translation>
    </message>
    <message>
        <source>Inductor</source>
        <translation>Inductor</translation>
    </message>
    <message>
        <source>none: %1</source>
        <translation>keine: %1</translation>
    </message>
    <message>
        <source>no timed runs</source>
        <translation>keine gemessenen Läufe</translation>
    </message>
    <message>
        <source>median %1 ms</source>
        <translation>Median %1 ms</translation>
    </message>
    <message>
        <source>n = %1</source>
        <translation>n = %1</translation>
    </message>
    <message>
        <source>drift %1%</source>
        <translation>Drift %1 %</translation>
    </message>
    <message>
        <source>max abs error %1</source>
        <translation>max. abs. Fehler %1</translation>
    </message>
    <message>
        <source>max rel error %1</source>
        <translation>max. rel. Fehler %1</translation>
    </message>
    <message>
        <source>no Inductor measurement</source>
        <translation>keine Inductor-Messung</translation>
    </message>
</context>
<context>
    <name>kx::ui::BaselineSettingsEditor</name>
    <message>
        <source>Compare with torch.compile (Ind&amp;uctor)</source>
        <translation>Mit torch.compile vergleichen (Ind&amp;uctor)</translation>
    </message>
    <message>
        <source>What candidates may round and how strictly they are checked; eager PyTorch and Inductor run under the same policy.</source>
        <translation>Was Kandidaten runden dürfen und wie streng sie geprüft werden; Eager-PyTorch und Inductor laufen unter derselben Richtlinie.</translation>
    </message>
    <message>
        <source>Time torch.compile (Inductor) on the same GPU, inputs and precision as eager PyTorch, and show every speedup against both. Off: eager only, nothing to build.</source>
        <translation>torch.compile (Inductor) auf derselben GPU mit denselben Eingaben und derselben Genauigkeit wie Eager-PyTorch messen und jede Beschleunigung gegenüber beiden zeigen. Aus: nur Eager, nichts zu bauen.</translation>
    </message>
    <message>
        <source>never</source>
        <translation>nie</translation>
    </message>
    <message>
        <source> evaluations</source>
        <translation> Bewertungen</translation>
    </message>
    <message>
        <source>The baselines are timed once per run and GPU, then again after this many evaluations on that GPU (0: never); the drift is recorded.</source>
        <translation>Die Referenzen werden einmal je Lauf und GPU gemessen, dann erneut nach so vielen Bewertungen auf dieser GPU (0: nie); die Drift wird festgehalten.</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>… or once this many minutes have passed (0: never).</source>
        <translation>… oder nach so vielen Minuten (0: nie).</translation>
    </message>
    <message>
        <source>Precisi&amp;on:</source>
        <translation>Genauig&amp;keit:</translation>
    </message>
    <message>
        <source>or</source>
        <translation>oder</translation>
    </message>
    <message>
        <source>Re-time &amp;baselines after:</source>
        <translation>&amp;Referenzen neu messen nach:</translation>
    </message>
</context>
<context>
    <name>kx::ui::CandidateLoader</name>
    <message>
        <source>The candidate %1 is not in the archive.</source>
        <translation>Der Kandidat %1 ist nicht im Archiv.</translation>
    </message>
</context>
<context>
    <name>kx::ui::CandidateView</name>
    <message>
        <source>CUDA Source</source>
        <translation>CUDA-Quelltext</translation>
    </message>
    <message>
        <source>Launch Plan</source>
        <translation>Startplan</translation>
    </message>
    <message>
        <source>PyTorch Reference</source>
        <translation>PyTorch-Referenz</translation>
    </message>
    <message>
        <source>parents: %1</source>
        <translation>Eltern: %1</translation>
    </message>
    <message>
        <source>Select a kernel to see its source.</source>
        <translation>Wählen Sie einen Kernel, um seinen Quelltext zu sehen.</translation>
    </message>
    <message>
        <source>&amp;New Candidate From This One…</source>
        <translation>&amp;Neuer Kandidat aus diesem …</translation>
    </message>
    <message>
        <source>Compile</source>
        <translation>Übersetzung</translation>
    </message>
    <message>
        <source>PTX</source>
        <translation>PTX</translation>
    </message>
    <message>
        <source>SASS</source>
        <translation>SASS</translation>
    </message>
    <message>
        <source>Provenance</source>
        <translation>Herkunft</translation>
    </message>
    <message>
        <source>Edit a copy of this kernel and evaluate it as a new candidate</source>
        <translation>Eine Kopie dieses Kernels bearbeiten und als neuen Kandidaten bewerten</translation>
    </message>
    <message>
        <source>No evaluation has recorded compile statistics for this kernel yet.</source>
        <translation>Für diesen Kernel hat noch keine Bewertung Übersetzungsstatistiken aufgezeichnet.</translation>
    </message>
    <message>
        <source>unknown GPU</source>
        <translation>unbekannte GPU</translation>
    </message>
    <message>
        <source>Registers: %1 · spills: %2 · static shared memory: %3 · compile time: %4 ms (%5)</source>
        <translation>Register: %1 · Auslagerungen: %2 · statischer Shared Memory: %3 · Übersetzungszeit: %4 ms (%5)</translation>
    </message>
    <message>
        <source>NVRTC wrote no log.</source>
        <translation>NVRTC hat kein Protokoll geschrieben.</translation>
    </message>
    <message>
        <source>Compiling for %1…</source>
        <translation>Übersetzen für %1 …</translation>
    </message>
    <message>
        <source>NVRTC could not compile this kernel for %1:
%2</source>
        <translation>NVRTC konnte diesen Kernel nicht für %1 übersetzen:
%2</translation>
    </message>
</context>
<context>
    <name>kx::ui::ComparisonMark</name>
    <message>
        <source>&amp;Mark for Comparison</source>
        <translation>Zum &amp;Vergleich markieren</translation>
    </message>
    <message>
        <source>&amp;Diff with Marked</source>
        <translation>&amp;Diff mit dem Markierten</translation>
    </message>
    <message>
        <source>&amp;Diff with Marked (%1)</source>
        <translation>&amp;Diff mit dem Markierten (%1)</translation>
    </message>
</context>
<context>
    <name>kx::ui::ConnectionTester</name>
    <message>
        <source>The connection test failed: %1</source>
        <translation>Der Verbindungstest ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Connected: %1 answered in %2 s (%3).</source>
        <translation>Verbunden: %1 hat in %2 s geantwortet (%3).</translation>
    </message>
</context>
<context>
    <name>kx::ui::CudaLexer</name>
    <message>
        <source>CUDA built-ins and intrinsics</source>
        <translation>CUDA-Built-ins und Intrinsics</translation>
    </message>
    <message>
        <source>CUDA vector and scalar types</source>
        <translation>CUDA-Vektor- und Skalartypen</translation>
    </message>
</context>
<context>
    <name>kx::ui::DiffView</name>
    <message>
        <source>Next Change</source>
        <translation>Nächste Änderung</translation>
    </message>
    <message>
        <source>Previous Change</source>
        <translation>Vorherige Änderung</translation>
    </message>
    <message>
        <source>The older kernel (left)</source>
        <translation>Der ältere Kernel (links)</translation>
    </message>
    <message>
        <source>The newer kernel (right)</source>
        <translation>Der neuere Kernel (rechts)</translation>
    </message>
    <message>
        <source>Next change (%1)</source>
        <translation>Nächste Änderung (%1)</translation>
    </message>
    <message>
        <source>Previous change (%1)</source>
        <translation>Vorherige Änderung (%1)</translation>
    </message>
    <message>
        <source>CUDA Source</source>
        <translation>CUDA-Quelltext</translation>
    </message>
    <message>
        <source>Launch Plan</source>
        <translation>Startplan</translation>
    </message>
    <message>
        <source>Select a kernel to compare it with its parent.</source>
        <translation>Wählen Sie einen Kernel, um ihn mit seinem Elternteil zu vergleichen.</translation>
    </message>
    <message>
        <source>The kernels could not be read: %1</source>
        <translation>Die Kernels konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>The candidate %1 is not in the archive.</source>
        <translation>Der Kandidat %1 ist nicht im Archiv.</translation>
    </message>
    <message>
        <source>The kernel has no parent; choose another one to compare with.</source>
        <translation>Der Kernel hat keinen Elternteil; wählen Sie einen anderen zum Vergleich.</translation>
    </message>
    <message>
        <source>No differences.</source>
        <translation>Keine Unterschiede.</translation>
    </message>
    <message numerus="yes">
        <source>%n change(s): </source>
        <translation>
            <numerusform>%n Änderung: </numerusform>
            <numerusform>%n Änderungen: </numerusform>
        </translation>
    </message>
    <message>
        <source>%1 changed, %2 added, %3 removed lines</source>
        <translation>%1 geänderte, %2 hinzugefügte, %3 entfernte Zeilen</translation>
    </message>
    <message>
        <source>change %1 of %2</source>
        <translation>Änderung %1 von %2</translation>
    </message>
    <message>
        <source>Type to find a kernel</source>
        <translation>Tippen, um einen Kernel zu finden</translation>
    </message>
</context>
<context>
    <name>kx::ui::ErrorReporter</name>
    <message>
        <source>Invalid input</source>
        <translation>Ungültige Eingabe</translation>
    </message>
    <message>
        <source>No GPU</source>
        <translation>Keine GPU</translation>
    </message>
    <message>
        <source>Not available</source>
        <translation>Nicht verfügbar</translation>
    </message>
</context>
<context>
    <name>kx::ui::EvaluationsPanel</name>
    <message>
        <source>compute %1</source>
        <translation>Compute %1</translation>
    </message>
    <message>
        <source>SMs: %1</source>
        <translation>SMs: %1</translation>
    </message>
    <message>
        <source>driver %1</source>
        <translation>Treiber %1</translation>
    </message>
    <message>
        <source>CUDA %1</source>
        <translation>CUDA %1</translation>
    </message>
    <message>
        <source>NVRTC %1</source>
        <translation>NVRTC %1</translation>
    </message>
    <message>
        <source>LibTorch %1</source>
        <translation>LibTorch %1</translation>
    </message>
    <message>
        <source>Property</source>
        <translation>Eigenschaft</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>Accepted</source>
        <translation>Angenommen</translation>
    </message>
    <message>
        <source>Rejected</source>
        <translation>Abgelehnt</translation>
    </message>
    <message>
        <source>Not reviewed.</source>
        <translation>Nicht geprüft.</translation>
    </message>
    <message>
        <source>No evaluations yet.</source>
        <translation>Noch keine Bewertungen.</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>flagged</source>
        <translation>markiert</translation>
    </message>
    <message>
        <source>unknown GPU</source>
        <translation>unbekannte GPU</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Meldung</translation>
    </message>
    <message>
        <source>Speedup</source>
        <translation>Beschleunigung</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Wall clock</source>
        <translation>Wanduhr</translation>
    </message>
    <message>
        <source>median %1 ms</source>
        <translation>Median %1 ms</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>Referenzmessung</translation>
    </message>
    <message>
        <source>Correctness</source>
        <translation>Korrektheit</translation>
    </message>
    <message>
        <source>Checks passed</source>
        <translation>Bestandene Prüfungen</translation>
    </message>
    <message>
        <source>Failure</source>
        <translation>Fehlschlag</translation>
    </message>
    <message>
        <source>Flags</source>
        <translation>Markierungen</translation>
    </message>
    <message>
        <source>Compile</source>
        <translation>Übersetzung</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Evaluated</source>
        <translation>Bewertet</translation>
    </message>
    <message>
        <source>Select a kernel to see its evaluations.</source>
        <translation>Wählen Sie einen Kernel, um seine Bewertungen zu sehen.</translation>
    </message>
    <message>
        <source>IQR %1 ms</source>
        <translation>IQR %1 ms</translation>
    </message>
    <message>
        <source>min %1 ms</source>
        <translation>Min. %1 ms</translation>
    </message>
    <message>
        <source>n = %1</source>
        <translation>n = %1</translation>
    </message>
    <message>
        <source>trials: %1</source>
        <translation>Versuche: %1</translation>
    </message>
    <message>
        <source>shape sets: %1</source>
        <translation>Formsätze: %1</translation>
    </message>
    <message>
        <source>max abs error %1</source>
        <translation>max. abs. Fehler %1</translation>
    </message>
    <message>
        <source>max rel error %1</source>
        <translation>max. rel. Fehler %1</translation>
    </message>
    <message>
        <source>mismatches: %1</source>
        <translation>Abweichungen: %1</translation>
    </message>
    <message>
        <source>registers: %1</source>
        <translation>Register: %1</translation>
    </message>
    <message>
        <source>spilled: %1</source>
        <translation>ausgelagert: %1</translation>
    </message>
    <message>
        <source>static shared: %1</source>
        <translation>statisch geteilt: %1</translation>
    </message>
    <message>
        <source>%1 vs Inductor</source>
        <translation>%1 ggü. Inductor</translation>
    </message>
    <message>
        <source>× Inductor</source>
        <translation>× Inductor</translation>
    </message>
    <message>
        <source>Standing</source>
        <translation>Einordnung</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>%1 %2 ms</source>
        <translation>%1 %2 ms</translation>
    </message>
    <message>
        <source>%1 none</source>
        <translation>%1 keine</translation>
    </message>
    <message>
        <source>Baselines</source>
        <translation>Referenzmessungen</translation>
    </message>
    <message>
        <source>on %1</source>
        <translation>auf %1</translation>
    </message>
    <message>
        <source>Trial inputs</source>
        <translation>Eingaben der Versuche</translation>
    </message>
    <message>
        <source>trial %1</source>
        <translation>Versuch %1</translation>
    </message>
    <message>
        <source>Timing inputs</source>
        <translation>Eingaben der Zeitmessung</translation>
    </message>
    <message>
        <source>input sets: %1, every run checked</source>
        <translation>Eingabesätze: %1, jeder Lauf geprüft</translation>
    </message>
    <message>
        <source>Error vs float64</source>
        <translation>Fehler gegenüber float64</translation>
    </message>
    <message>
        <source>not measured: %1</source>
        <translation>nicht gemessen: %1</translation>
    </message>
    <message>
        <source>p99 rel %1 (fp32 reference %2)</source>
        <translation>p99 rel. %1 (fp32-Referenz %2)</translation>
    </message>
    <message>
        <source>max rel %1 (fp32 reference %2)</source>
        <translation>max. rel. %1 (fp32-Referenz %2)</translation>
    </message>
    <message>
        <source>samples: %1</source>
        <translation>Stichproben: %1</translation>
    </message>
    <message>
        <source>Relative error against the reference computed in float64, on trial 0&apos;s inputs, beside the error of the fp32 reference itself</source>
        <translation>Relativer Fehler gegenüber der in float64 berechneten Referenz, auf den Eingaben von Versuch 0, neben dem Fehler der fp32-Referenz selbst</translation>
    </message>
    <message>
        <source>eager with TF32: p99 rel %1, max rel %2</source>
        <translation>Eager mit TF32: p99 rel. %1, max. rel. %2</translation>
    </message>
</context>
<context>
    <name>kx::ui::Format</name>
    <message>
        <source>correct</source>
        <translation>korrekt</translation>
    </message>
    <message>
        <source>incorrect</source>
        <translation>falsch</translation>
    </message>
    <message>
        <source>compile error</source>
        <translation>Übersetzungsfehler</translation>
    </message>
    <message>
        <source>plan error</source>
        <translation>Planfehler</translation>
    </message>
    <message>
        <source>launch error</source>
        <translation>Startfehler</translation>
    </message>
    <message>
        <source>fault</source>
        <translation>Absturz im Kernel</translation>
    </message>
    <message>
        <source>timeout</source>
        <translation>Zeitüberschreitung</translation>
    </message>
    <message>
        <source>crashed</source>
        <translation>abgestürzt</translation>
    </message>
    <message>
        <source>not evaluated</source>
        <translation>nicht bewertet</translation>
    </message>
    <message>
        <source>translated</source>
        <translation>übersetzt</translation>
    </message>
    <message>
        <source>mutated</source>
        <translation>mutiert</translation>
    </message>
    <message>
        <source>crossover</source>
        <translation>gekreuzt</translation>
    </message>
    <message>
        <source>manual</source>
        <translation>von Hand</translation>
    </message>
    <message>
        <source>imported</source>
        <translation>importiert</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>angenommen</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>abgelehnt</translation>
    </message>
    <message>
        <source>%1 prompt + %2 completion tokens</source>
        <translation>%1 Prompt- + %2 Antwort-Tokens</translation>
    </message>
    <message>
        <source>est. cost %1</source>
        <translation>geschätzte Kosten %1</translation>
    </message>
</context>
<context>
    <name>kx::ui::KernelExporter</name>
    <message>
        <source>The candidate %1 or its op is not in the archive.</source>
        <translation>Der Kandidat %1 oder seine Op ist nicht im Archiv.</translation>
    </message>
</context>
<context>
    <name>kx::ui::KernelsModel</name>
    <message>
        <source>Evaluations: %1</source>
        <translation>Bewertungen: %1</translation>
    </message>
    <message>
        <source>Id</source>
        <translation>Id</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>Op</translation>
    </message>
    <message>
        <source>Origin</source>
        <translation>Herkunft</translation>
    </message>
    <message>
        <source>Operator</source>
        <translation>Operator</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Best GPU</source>
        <translation>Beste GPU</translation>
    </message>
    <message>
        <source>Median (ms)</source>
        <translation>Median (ms)</translation>
    </message>
    <message>
        <source>Flags</source>
        <translation>Markierungen</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>Urteil</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Erstellt</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>Beschreibung</translation>
    </message>
    <message>
        <source>Speedup of the best evaluation over eager PyTorch</source>
        <translation>Beschleunigung der besten Bewertung gegenüber Eager-PyTorch</translation>
    </message>
    <message>
        <source>Speedup of the same evaluation over torch.compile (Inductor) on the same GPU, under the same precision policy; empty where torch.compile was not measured</source>
        <translation>Beschleunigung derselben Bewertung gegenüber torch.compile (Inductor) auf derselben GPU unter derselben Genauigkeitsrichtlinie; leer, wo torch.compile nicht gemessen wurde</translation>
    </message>
    <message>
        <source>The precision policy the best evaluation was checked and timed under</source>
        <translation>Die Genauigkeitsrichtlinie, unter der die beste Bewertung geprüft und gemessen wurde</translation>
    </message>
    <message>
        <source>× eager</source>
        <translation>× Eager</translation>
    </message>
    <message>
        <source>× Inductor</source>
        <translation>× Inductor</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Genauigkeit</translation>
    </message>
</context>
<context>
    <name>kx::ui::KernelsPage</name>
    <message>
        <source>Flagged</source>
        <translation>Markiert</translation>
    </message>
    <message>
        <source>Filter by id, op or description</source>
        <translation>Nach Id, Op oder Beschreibung filtern</translation>
    </message>
    <message>
        <source>Show the kernels of one op</source>
        <translation>Die Kernels einer Op zeigen</translation>
    </message>
    <message>
        <source>All ops</source>
        <translation>Alle Ops</translation>
    </message>
    <message>
        <source>Show kernels whose best evaluation has this status</source>
        <translation>Kernels zeigen, deren beste Bewertung diesen Status hat</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>Alle Status</translation>
    </message>
    <message>
        <source>Show only kernels with flagged evaluations</source>
        <translation>Nur Kernels mit markierten Bewertungen zeigen</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>Wird geladen …</translation>
    </message>
    <message>
        <source>Kernels: %1</source>
        <translation>Kernels: %1</translation>
    </message>
    <message>
        <source>Kernels: %1 of %2</source>
        <translation>Kernels: %1 von %2</translation>
    </message>
    <message>
        <source>Diff the &amp;Two Selected</source>
        <translation>Die &amp;zwei ausgewählten vergleichen</translation>
    </message>
    <message>
        <source>&amp;Copy Id</source>
        <translation>Id &amp;kopieren</translation>
    </message>
</context>
<context>
    <name>kx::ui::LineageOverview</name>
    <message>
        <source>Overview: click or drag to move the view</source>
        <translation>Übersicht: klicken oder ziehen, um die Ansicht zu verschieben</translation>
    </message>
</context>
<context>
    <name>kx::ui::LineagePage</name>
    <message>
        <source>correct, 8× faster</source>
        <translation>korrekt, 8× schneller</translation>
    </message>
    <message>
        <source>correct, 1.5× faster</source>
        <translation>korrekt, 1,5× schneller</translation>
    </message>
    <message>
        <source>correct, slower</source>
        <translation>korrekt, langsamer</translation>
    </message>
    <message>
        <source>incorrect</source>
        <translation>falsch</translation>
    </message>
    <message>
        <source>timeout, crash, fault</source>
        <translation>Zeitüberschreitung, Absturz, Fehler</translation>
    </message>
    <message>
        <source>compile error</source>
        <translation>Kompilierfehler</translation>
    </message>
    <message>
        <source>not evaluated yet</source>
        <translation>noch nicht bewertet</translation>
    </message>
    <message>
        <source>Path to &amp;Best</source>
        <translation>Pfad zum &amp;Besten</translation>
    </message>
    <message>
        <source>&amp;Collapse Failed</source>
        <translation>Fehlgeschlagene &amp;einklappen</translation>
    </message>
    <message>
        <source>The run whose lineage is shown</source>
        <translation>Der Lauf, dessen Stammbaum gezeigt wird</translation>
    </message>
    <message>
        <source>Colour by the results on this GPU</source>
        <translation>Nach den Ergebnissen auf dieser GPU färben</translation>
    </message>
    <message>
        <source>Any GPU</source>
        <translation>Jede GPU</translation>
    </message>
    <message>
        <source>Find by id, operator or description</source>
        <translation>Nach ID, Operator oder Beschreibung suchen</translation>
    </message>
    <message>
        <source>Highlight the path from the root to the fastest correct kernel (Ctrl+B)</source>
        <translation>Den Pfad von der Wurzel zum schnellsten korrekten Kernel hervorheben (Strg+B)</translation>
    </message>
    <message>
        <source>Hide branches in which nothing is correct (Ctrl+K)</source>
        <translation>Zweige ausblenden, in denen nichts korrekt ist (Strg+K)</translation>
    </message>
    <message>
        <source>Run %1 · %2 · %3</source>
        <translation>Lauf %1 · %2 · %3</translation>
    </message>
    <message>
        <source>No run</source>
        <translation>Kein Lauf</translation>
    </message>
    <message>
        <source>Reading the run…</source>
        <translation>Lauf wird gelesen …</translation>
    </message>
    <message>
        <source>Choose a run, or start a search.</source>
        <translation>Wählen Sie einen Lauf oder starten Sie eine Suche.</translation>
    </message>
    <message numerus="yes">
        <source>%n candidate(s), %1 correct</source>
        <translation>
            <numerusform>%n Kandidat, %1 korrekt</numerusform>
            <numerusform>%n Kandidaten, %1 korrekt</numerusform>
        </translation>
    </message>
    <message>
        <source>Best: %1 %2</source>
        <translation>Bester: %1 %2</translation>
    </message>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n Treffer</numerusform>
            <numerusform>%n Treffer</numerusform>
        </translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>Ver&amp;größern</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>Ver&amp;kleinern</translation>
    </message>
    <message>
        <source>&amp;Fit Lineage</source>
        <translation>Stammbaum &amp;einpassen</translation>
    </message>
    <message>
        <source>Zoom in (%1, + or the mouse wheel)</source>
        <translation>Vergrößern (%1, + oder das Mausrad)</translation>
    </message>
    <message>
        <source>Zoom out (%1 or -)</source>
        <translation>Verkleinern (%1 oder -)</translation>
    </message>
    <message>
        <source>Fit the lineage into the view (%1 or F)</source>
        <translation>Den Stammbaum in die Ansicht einpassen (%1 oder F)</translation>
    </message>
    <message>
        <source>&amp;New Candidate From This One…</source>
        <translation>&amp;Neuer Kandidat aus diesem …</translation>
    </message>
    <message>
        <source>&amp;Accept…</source>
        <translation>&amp;Annehmen …</translation>
    </message>
    <message>
        <source>&amp;Reject…</source>
        <translation>A&amp;blehnen …</translation>
    </message>
    <message>
        <source>Open in &amp;Kernels</source>
        <translation>In &amp;Kernels öffnen</translation>
    </message>
    <message>
        <source>&amp;Copy Id</source>
        <translation>Id &amp;kopieren</translation>
    </message>
    <message>
        <source>&amp;Elite Only</source>
        <translation>Nur Eli&amp;te</translation>
    </message>
    <message>
        <source>Show only the %1 fastest kernels, their ancestors and what else was tried at each step: a large run at a glance (Ctrl+Shift+K)</source>
        <translation>Nur die %1 schnellsten Kernel zeigen, ihre Vorfahren und was bei jedem Schritt sonst versucht wurde: ein großer Lauf auf einen Blick (Strg+Umschalt+K)</translation>
    </message>
    <message>
        <source>Which kernels to show on the chosen GPU (with their ancestors, so each stays linked to the root)</source>
        <translation>Welche Kernel auf der gewählten GPU gezeigt werden (mit ihren Vorfahren, damit jeder mit der Wurzel verbunden bleibt)</translation>
    </message>
    <message>
        <source>All kernels</source>
        <translation>Alle Kernel</translation>
    </message>
    <message>
        <source>Correct</source>
        <translation>Korrekte</translation>
    </message>
    <message>
        <source>Faster than eager</source>
        <translation>Schneller als eager</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagene</translation>
    </message>
    <message>
        <source>&amp;Group Failures</source>
        <translation>Fehlschläge &amp;gruppieren</translation>
    </message>
    <message>
        <source>Show the failures made from one kernel in one generation as one node that says how many there were</source>
        <translation>Die Fehlschläge, die in einer Generation aus einem Kernel entstanden, als einen Knoten zeigen, der sagt, wie viele es waren</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>Ansichten</translation>
    </message>
    <message>
        <source>Hide part of a large lineage: failed branches, all but the elite, grouped failures</source>
        <translation>Einen Teil einer großen Abstammung ausblenden: fehlgeschlagene Zweige, alles außer der Elite, gruppierte Fehlschläge</translation>
    </message>
</context>
<context>
    <name>kx::ui::LineageScene</name>
    <message>
        <source>pending</source>
        <translation>ausstehend</translation>
    </message>
    <message>
        <source>compile error</source>
        <translation>Kompilierfehler</translation>
    </message>
    <message>
        <source>incorrect</source>
        <translation>falsch</translation>
    </message>
    <message>
        <source>crash/timeout</source>
        <translation>Absturz/Zeitüberschreitung</translation>
    </message>
    <message>
        <source>%1 failed</source>
        <translation>%1 fehlgeschlagen</translation>
    </message>
</context>
<context>
    <name>kx::ui::MainWindow</name>
    <message>
        <source>Kernels</source>
        <translation>Kernels</translation>
    </message>
    <message>
        <source>The kernels could not be read: %1</source>
        <translation>Die Kernels konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Candidate %1 is not in the kernels table.</source>
        <translation>Kandidat %1 ist nicht in der Kerneltabelle.</translation>
    </message>
    <message>
        <source>&amp;New Archive…</source>
        <translation>&amp;Neues Archiv …</translation>
    </message>
    <message>
        <source>Create an empty archive</source>
        <translation>Ein leeres Archiv anlegen</translation>
    </message>
    <message>
        <source>&amp;Open Archive…</source>
        <translation>Archiv ö&amp;ffnen …</translation>
    </message>
    <message>
        <source>Open an archive</source>
        <translation>Ein Archiv öffnen</translation>
    </message>
    <message>
        <source>Open Archive &amp;Read-Only…</source>
        <translation>Archiv &amp;schreibgeschützt öffnen …</translation>
    </message>
    <message>
        <source>Open an archive for browsing without changing it</source>
        <translation>Ein Archiv zum Ansehen öffnen, ohne es zu verändern</translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation>Neu &amp;laden</translation>
    </message>
    <message>
        <source>Read the archive again</source>
        <translation>Das Archiv erneut lesen</translation>
    </message>
    <message>
        <source>&amp;Close Archive</source>
        <translation>Archiv s&amp;chließen</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Filter Kernels</source>
        <translation>Kernels &amp;filtern</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>Main Toolbar</source>
        <translation>Hauptwerkzeugleiste</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;About Kernel Explorer</source>
        <translation>&amp;Über Kernel Explorer</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>Über &amp;Qt</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>Quelltext</translation>
    </message>
    <message>
        <source>Evaluations</source>
        <translation>Bewertungen</translation>
    </message>
    <message>
        <source>Open Archive</source>
        <translation>Archiv öffnen</translation>
    </message>
    <message>
        <source>New Archive</source>
        <translation>Neues Archiv</translation>
    </message>
    <message>
        <source>Opened %1 read-only.</source>
        <translation>%1 schreibgeschützt geöffnet.</translation>
    </message>
    <message>
        <source>Opened %1.</source>
        <translation>%1 geöffnet.</translation>
    </message>
    <message>
        <source>Open Archive Read-Only</source>
        <translation>Archiv schreibgeschützt öffnen</translation>
    </message>
    <message>
        <source>About Kernel Explorer</source>
        <translation>Über Kernel Explorer</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Kernel Explorer %1&lt;/h3&gt;&lt;p&gt;Turns PyTorch ops into fast, verified CUDA kernels by evolutionary search, and keeps every kernel it evaluated in an archive you can browse offline.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Kernel Explorer %1&lt;/h3&gt;&lt;p&gt;Macht aus PyTorch-Ops durch evolutionäre Suche schnelle, geprüfte CUDA-Kernels und bewahrt jeden bewerteten Kernel in einem Archiv auf, das Sie offline durchsuchen können.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Lineage</source>
        <translation>Stammbaum</translation>
    </message>
    <message>
        <source>Open O&amp;p…</source>
        <translation>O&amp;p öffnen …</translation>
    </message>
    <message>
        <source>Choose an op to search on</source>
        <translation>Eine Op für die Suche wählen</translation>
    </message>
    <message>
        <source>&amp;Search</source>
        <translation>&amp;Suche</translation>
    </message>
    <message>
        <source>Run Controls</source>
        <translation>Laufsteuerung</translation>
    </message>
    <message>
        <source>Diff</source>
        <translation>Vergleich</translation>
    </message>
    <message>
        <source>Plots</source>
        <translation>Diagramme</translation>
    </message>
    <message>
        <source>Review</source>
        <translation>Prüfung</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>Urteil</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Bearbeiten</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>&amp;Rückgängig</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>&amp;Wiederholen</translation>
    </message>
    <message>
        <source>&amp;Review</source>
        <translation>&amp;Prüfung</translation>
    </message>
    <message>
        <source>&amp;Accept Kernel…</source>
        <translation>Kernel &amp;annehmen …</translation>
    </message>
    <message>
        <source>&amp;Reject Kernel…</source>
        <translation>Kernel a&amp;blehnen …</translation>
    </message>
    <message>
        <source>&amp;Export Kernel…</source>
        <translation>Kernel &amp;exportieren …</translation>
    </message>
    <message>
        <source>Export Kernel To</source>
        <translation>Kernel exportieren nach</translation>
    </message>
    <message>
        <source>Exported to %1.</source>
        <translation>Nach %1 exportiert.</translation>
    </message>
    <message>
        <source>Export Kernel</source>
        <translation>Kernel exportieren</translation>
    </message>
    <message>
        <source>New Candidate</source>
        <translation>Neuer Kandidat</translation>
    </message>
    <message>
        <source>Show %1</source>
        <translation>%1 anzeigen</translation>
    </message>
    <message>
        <source>Open &amp;Sample Archive</source>
        <translation>Beispiel&amp;archiv öffnen</translation>
    </message>
    <message>
        <source>Real searches on H200 GPUs to explore: lineages, speedups per GPU, diffs</source>
        <translation>Echte Suchen auf H200-GPUs zum Erkunden: Stammbäume, Beschleunigungen je GPU, Diffs</translation>
    </message>
    <message>
        <source>Open Sample Archive</source>
        <translation>Beispielarchiv öffnen</translation>
    </message>
</context>
<context>
    <name>kx::ui::ManualCheck</name>
    <message>
        <source>line %1: </source>
        <translation>Zeile %1: </translation>
    </message>
    <message>
        <source>The source is empty.</source>
        <translation>Der Quelltext ist leer.</translation>
    </message>
    <message>
        <source>Launch plan: %1</source>
        <translation>Startplan: %1</translation>
    </message>
    <message>
        <source>This build has no NVRTC (the CUDA toolkit was missing when it was built).</source>
        <translation>Dieser Build enthält kein NVRTC (das CUDA-Toolkit fehlte beim Erstellen).</translation>
    </message>
    <message>
        <source>NVRTC: %1</source>
        <translation>NVRTC: %1</translation>
    </message>
</context>
<context>
    <name>kx::ui::ManualEditDialog</name>
    <message>
        <source>&amp;Check</source>
        <translation>&amp;Prüfen</translation>
    </message>
    <message>
        <source>&amp;Submit</source>
        <translation>&amp;Einreichen</translation>
    </message>
    <message>
        <source>New Candidate From %1</source>
        <translation>Neuer Kandidat aus %1</translation>
    </message>
    <message>
        <source>manual edit of %1</source>
        <translation>Handbearbeitung von %1</translation>
    </message>
    <message>
        <source>Edit the kernel, then Check (Ctrl+Return) or Submit (Ctrl+S).</source>
        <translation>Den Kernel bearbeiten, dann Prüfen (Strg+Eingabe) oder Einreichen (Strg+S).</translation>
    </message>
    <message>
        <source>CUDA Source</source>
        <translation>CUDA-Quelltext</translation>
    </message>
    <message>
        <source>Launch Plan</source>
        <translation>Startplan</translation>
    </message>
    <message>
        <source>Op %1 · parent %2 · the new kernel is stored in the parent&apos;s run and evaluated.</source>
        <translation>Op %1 · Elternteil %2 · Der neue Kernel wird im Lauf des Elternteils gespeichert und bewertet.</translation>
    </message>
    <message>
        <source>Check the device code, the launch plan and compile with NVRTC (Ctrl+Return)</source>
        <translation>Gerätecode und Startplan prüfen und mit NVRTC übersetzen (Strg+Eingabe)</translation>
    </message>
    <message>
        <source>Check, then store the kernel as a new candidate and evaluate it (Ctrl+S)</source>
        <translation>Prüfen, dann den Kernel als neuen Kandidaten speichern und bewerten (Strg+S)</translation>
    </message>
    <message>
        <source>&amp;Description:</source>
        <translation>&amp;Beschreibung:</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>Prüfe …</translation>
    </message>
    <message numerus="yes">
        <source>No problems: %n kernel(s), %1 registers at most, compiled in %2 ms.</source>
        <translation>
            <numerusform>Keine Probleme: %n Kernel, höchstens %1 Register, übersetzt in %2 ms.</numerusform>
            <numerusform>Keine Probleme: %n Kernel, höchstens %1 Register, übersetzt in %2 ms.</numerusform>
        </translation>
    </message>
    <message>
        <source>Not stored:</source>
        <translation>Nicht gespeichert:</translation>
    </message>
</context>
<context>
    <name>kx::ui::ManualEdits</name>
    <message>
        <source>Candidate %1 evaluated: %2</source>
        <translation>Kandidat %1 bewertet: %2</translation>
    </message>
    <message>
        <source>Candidate %1 is stored unevaluated: there is no GPU to evaluate it on (%2).</source>
        <translation>Kandidat %1 ist unbewertet gespeichert: Es gibt keine GPU, auf der er bewertet werden könnte (%2).</translation>
    </message>
    <message>
        <source>Candidate %1 is stored unevaluated: %2</source>
        <translation>Kandidat %1 ist unbewertet gespeichert: %2</translation>
    </message>
    <message>
        <source>The archive is open read-only: a new candidate cannot be stored in it.</source>
        <translation>Das Archiv ist schreibgeschützt geöffnet: Ein neuer Kandidat kann darin nicht gespeichert werden.</translation>
    </message>
    <message>
        <source>The candidate %1 or its op is not in the archive.</source>
        <translation>Der Kandidat %1 oder seine Op ist nicht im Archiv.</translation>
    </message>
    <message>
        <source>Not stored: %1</source>
        <translation>Nicht gespeichert: %1</translation>
    </message>
    <message>
        <source>Not stored: this exact kernel is in the archive already (%1).</source>
        <translation>Nicht gespeichert: Genau dieser Kernel ist bereits im Archiv (%1).</translation>
    </message>
    <message>
        <source>Stored candidate %1; evaluating it…</source>
        <translation>Kandidat %1 gespeichert; er wird bewertet …</translation>
    </message>
</context>
<context>
    <name>kx::ui::OpenDialog</name>
    <message>
        <source>Open Op</source>
        <translation>Op öffnen</translation>
    </message>
    <message>
        <source>Search ops by name or description</source>
        <translation>Ops nach Name oder Beschreibung suchen</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Startwert</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Gestartet</translation>
    </message>
    <message>
        <source>PyTorch reference:</source>
        <translation>PyTorch-Referenz:</translation>
    </message>
    <message>
        <source>Earlier runs in this archive:</source>
        <translation>Frühere Läufe in diesem Archiv:</translation>
    </message>
    <message>
        <source>KernelBench problems imported into this archive are listed here; this archive has none.</source>
        <translation>In dieses Archiv importierte KernelBench-Aufgaben erscheinen hier; dieses Archiv enthält keine.</translation>
    </message>
    <message>
        <source>The archive&apos;s ops could not be read: %1</source>
        <translation>Die Ops des Archivs konnten nicht gelesen werden: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n op(s) imported into this archive (KernelBench and others) are listed after the built-in ones.</source>
        <translation>
            <numerusform>%n in dieses Archiv importierte Op (KernelBench und andere) steht nach den eingebauten.</numerusform>
            <numerusform>%n in dieses Archiv importierte Ops (KernelBench und andere) stehen nach den eingebauten.</numerusform>
        </translation>
    </message>
    <message>
        <source>built-in</source>
        <translation>eingebaut</translation>
    </message>
    <message>
        <source>KernelBench</source>
        <translation>KernelBench</translation>
    </message>
    <message>
        <source>manual</source>
        <translation>manuell</translation>
    </message>
    <message>
        <source>%1  (recent)</source>
        <translation>%1  (zuletzt)</translation>
    </message>
    <message>
        <source>%1  (%2)</source>
        <translation>%1  (%2)</translation>
    </message>
    <message>
        <source>No op matches.</source>
        <translation>Keine Op passt.</translation>
    </message>
    <message>
        <source>Inputs: %1</source>
        <translation>Eingaben: %1</translation>
    </message>
    <message>
        <source>Shapes (timed): %1</source>
        <translation>Formen (gemessen): %1</translation>
    </message>
    <message>
        <source>Shapes (checked): %1</source>
        <translation>Formen (geprüft): %1</translation>
    </message>
    <message>
        <source>The runs could not be read: %1</source>
        <translation>Die Läufe konnten nicht gelesen werden: %1</translation>
    </message>
</context>
<context>
    <name>kx::ui::PlotsPage</name>
    <message>
        <source>Export</source>
        <translation>Exportieren</translation>
    </message>
    <message>
        <source>Speedup per GPU…</source>
        <translation>Beschleunigung je GPU …</translation>
    </message>
    <message>
        <source>Best Speedup over the Search…</source>
        <translation>Beste Beschleunigung im Suchverlauf …</translation>
    </message>
    <message>
        <source>Runtime Distribution…</source>
        <translation>Laufzeitverteilung …</translation>
    </message>
    <message>
        <source>Roofline…</source>
        <translation>Roofline …</translation>
    </message>
    <message>
        <source>Op:</source>
        <translation>Op:</translation>
    </message>
    <message>
        <source>Run:</source>
        <translation>Lauf:</translation>
    </message>
    <message>
        <source>Export Plot…</source>
        <translation>Diagramm exportieren …</translation>
    </message>
    <message>
        <source>Speedup per GPU</source>
        <translation>Beschleunigung je GPU</translation>
    </message>
    <message>
        <source>Candidate</source>
        <translation>Kandidat</translation>
    </message>
    <message>
        <source>Best speedup over the search</source>
        <translation>Beste Beschleunigung im Suchverlauf</translation>
    </message>
    <message>
        <source>Candidates evaluated</source>
        <translation>Bewertete Kandidaten</translation>
    </message>
    <message>
        <source>Runtime of the selected kernel</source>
        <translation>Laufzeit des gewählten Kernels</translation>
    </message>
    <message>
        <source>Time per run (ms)</source>
        <translation>Zeit je Lauf (ms)</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>Roofline</translation>
    </message>
    <message>
        <source>Arithmetic intensity (FLOP/byte)</source>
        <translation>Arithmetische Intensität (FLOP/Byte)</translation>
    </message>
    <message>
        <source>GFLOP/s</source>
        <translation>GFLOP/s</translation>
    </message>
    <message>
        <source>Reading…</source>
        <translation>Wird gelesen …</translation>
    </message>
    <message>
        <source>The plots could not be read: %1</source>
        <translation>Die Diagrammdaten konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Select a kernel for its runtime and roofline.</source>
        <translation>Wählen Sie einen Kernel für Laufzeit und Roofline.</translation>
    </message>
    <message>
        <source>Selected kernel: %1</source>
        <translation>Gewählter Kernel: %1</translation>
    </message>
    <message>
        <source>All runs</source>
        <translation>Alle Läufe</translation>
    </message>
    <message>
        <source>Run %1 (%2)</source>
        <translation>Lauf %1 (%2)</translation>
    </message>
    <message>
        <source>No correct evaluations yet.</source>
        <translation>Noch keine korrekten Bewertungen.</translation>
    </message>
    <message>
        <source>%1 on %2: %3</source>
        <translation>%1 auf %2: %3</translation>
    </message>
    <message>
        <source>%1: not measured correct on %2</source>
        <translation>%1: auf %2 nicht korrekt gemessen</translation>
    </message>
    <message>
        <source>Nothing evaluated yet.</source>
        <translation>Noch nichts bewertet.</translation>
    </message>
    <message>
        <source>%1: best %2 after %3 candidates</source>
        <translation>%1: beste %2 nach %3 Kandidaten</translation>
    </message>
    <message>
        <source>Select a kernel.</source>
        <translation>Wählen Sie einen Kernel.</translation>
    </message>
    <message>
        <source>The kernel has no timing samples.</source>
        <translation>Der Kernel hat keine Zeitmessungen.</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>%1 on %2: median %3 ms, IQR %4–%5 ms, %6 samples</source>
        <translation>%1 auf %2: Median %3 ms, IQR %4–%5 ms, %6 Messungen</translation>
    </message>
    <message>
        <source>No roofline: %1</source>
        <translation>Keine Roofline: %1</translation>
    </message>
    <message>
        <source>%1 roof</source>
        <translation>Dach von %1</translation>
    </message>
    <message>
        <source>%1: %2 GB/s measured bandwidth, %3 GFLOP/s peak</source>
        <translation>%1: %2 GB/s gemessene Bandbreite, %3 GFLOP/s Spitze</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>Kernel on %1</source>
        <translation>Kernel auf %1</translation>
    </message>
    <message>
        <source>%1: %2 ms → %3 GB/s (%4% of measured bandwidth), %5 GFLOP/s</source>
        <translation>%1: %2 ms → %3 GB/s (%4 % der gemessenen Bandbreite), %5 GFLOP/s</translation>
    </message>
    <message>
        <source> (%1% of peak)</source>
        <translation> (%1 % der Spitze)</translation>
    </message>
    <message>
        <source>Faster than the memory system allows: the timing cannot be right.</source>
        <translation>Schneller als der Speicher erlaubt: die Zeitmessung kann nicht stimmen.</translation>
    </message>
    <message>
        <source>The plot could not be written to &quot;%1&quot;.</source>
        <translation>Das Diagramm konnte nicht nach „%1“ geschrieben werden.</translation>
    </message>
    <message>
        <source>Export Plot</source>
        <translation>Diagramm exportieren</translation>
    </message>
    <message>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation>PNG-Bild (*.png);;PDF-Dokument (*.pdf)</translation>
    </message>
    <message>
        <source>Export &amp;Plot</source>
        <translation>&amp;Diagramm exportieren</translation>
    </message>
    <message>
        <source>Best speedup over eager (×)</source>
        <translation>Beste Beschleunigung gegenüber Eager (×)</translation>
    </message>
    <message>
        <source>Inductor on %1</source>
        <translation>Inductor auf %1</translation>
    </message>
    <message>
        <source>torch.compile (Inductor) on %1: %2 over eager (%3); above this line a kernel beats Inductor too</source>
        <translation>torch.compile (Inductor) auf %1: %2 gegenüber Eager (%3); oberhalb dieser Linie schlägt ein Kernel auch Inductor</translation>
    </message>
    <message>
        <source>Eager PyTorch</source>
        <translation>Eager-PyTorch</translation>
    </message>
    <message>
        <source>torch.compile (Inductor)</source>
        <translation>torch.compile (Inductor)</translation>
    </message>
    <message>
        <source>Reference (eager PyTorch)</source>
        <translation>Referenz (Eager-PyTorch)</translation>
    </message>
    <message>
        <source>Rejected or flagged (not to scale)</source>
        <translation>Abgelehnt oder markiert (nicht maßstabsgetreu)</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>abgelehnt</translation>
    </message>
    <message>
        <source>flagged impossible</source>
        <translation>als unmöglich markiert</translation>
    </message>
    <message>
        <source>%1: %2, %3</source>
        <translation>%1: %2, %3</translation>
    </message>
    <message>
        <source>&amp;Log scale</source>
        <translation>&amp;Logarithmische Skala</translation>
    </message>
    <message>
        <source>Speedups on a logarithmic axis: 2x faster and 2x slower lie the same distance from 1x, and kernels far apart in speed stay readable side by side</source>
        <translation>Beschleunigungen auf einer logarithmischen Achse: doppelt so schnell und halb so schnell liegen gleich weit von 1x entfernt, und sehr unterschiedlich schnelle Kernel bleiben nebeneinander lesbar</translation>
    </message>
    <message>
        <source>Speedup over eager (×)</source>
        <translation>Beschleunigung gegenüber eager (×)</translation>
    </message>
</context>
<context>
    <name>kx::ui::PortabilityTable</name>
    <message>
        <source>Speedup over eager PyTorch on each GPU. Spread: how much faster the kernel&apos;s best GPU makes it than its worst; on two cards of one model it is measurement noise</source>
        <translation>Beschleunigung gegenüber eager PyTorch auf jeder GPU. Streuung: wie viel schneller der Kernel auf seiner besten GPU ist als auf seiner schlechtesten; bei zwei Karten eines Modells ist das Messrauschen</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>Spread</source>
        <translation>Streuung</translation>
    </message>
    <message>
        <source>eager PyTorch</source>
        <translation>eager PyTorch</translation>
    </message>
    <message>
        <source>The time of eager PyTorch on each GPU (median)</source>
        <translation>Die Zeit von eager PyTorch auf jeder GPU (Median)</translation>
    </message>
    <message>
        <source>torch.compile (Inductor)</source>
        <translation>torch.compile (Inductor)</translation>
    </message>
    <message>
        <source>Inductor&apos;s speedup over eager on each GPU</source>
        <translation>Beschleunigung von Inductor gegenüber eager auf jeder GPU</translation>
    </message>
    <message>
        <source>Timed on one GPU only</source>
        <translation>Nur auf einer GPU gemessen</translation>
    </message>
</context>
<context>
    <name>kx::ui::ProfileEvidence</name>
    <message>
        <source>%1 MB</source>
        <translation>%1 MB</translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation>%1 µs</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>measured %1 of DRAM traffic where the op must move %2 (%3× of it, under %4×)</source>
        <translation>%1 DRAM-Verkehr gemessen, wo die Operation %2 bewegen muss (das %3-Fache davon, unter %4×)</translation>
    </message>
    <message>
        <source>Not profiled. Profile runs one launch of the kernel and of the eager reference under Nsight Compute and stores what the hardware measured.</source>
        <translation>Nicht profiliert. „Profilieren“ führt einen Start des Kernels und der Eager-Referenz unter Nsight Compute aus und speichert, was die Hardware gemessen hat.</translation>
    </message>
    <message>
        <source>ncu %1, %2</source>
        <translation>ncu %1, %2</translation>
    </message>
    <message>
        <source>%1 (the card&apos;s copy bandwidth)</source>
        <translation>%1 (Kopierbandbreite der Karte)</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>Kernels</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>DRAM read</source>
        <translation>DRAM gelesen</translation>
    </message>
    <message>
        <source>DRAM written</source>
        <translation>DRAM geschrieben</translation>
    </message>
    <message>
        <source>DRAM traffic</source>
        <translation>DRAM-Verkehr</translation>
    </message>
    <message>
        <source>%1 (what the op must move)</source>
        <translation>%1 (was die Operation bewegen muss)</translation>
    </message>
    <message>
        <source>Measured / model bytes</source>
        <translation>Gemessene / Modell-Bytes</translation>
    </message>
    <message>
        <source>Achieved bandwidth</source>
        <translation>Erreichte Bandbreite</translation>
    </message>
    <message>
        <source>SM throughput</source>
        <translation>SM-Durchsatz</translation>
    </message>
    <message>
        <source>Tensor pipes</source>
        <translation>Tensor-Pipes</translation>
    </message>
    <message>
        <source>Achieved occupancy</source>
        <translation>Erreichte Auslastung</translation>
    </message>
    <message>
        <source>Registers per thread</source>
        <translation>Register pro Thread</translation>
    </message>
    <message>
        <source>L2 hit rate</source>
        <translation>L2-Trefferquote</translation>
    </message>
    <message>
        <source>Top stalls (cycles per issue)</source>
        <translation>Häufigste Stalls (Zyklen pro Ausgabe)</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>Eager reference</source>
        <translation>Eager-Referenz</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Traffic rule: %1</source>
        <translation>Verkehrsregel: %1</translation>
    </message>
    <message>
        <source>Finding: %1</source>
        <translation>Befund: %1</translation>
    </message>
    <message>
        <source>%1: profiling failed</source>
        <translation>%1: Profilieren fehlgeschlagen</translation>
    </message>
    <message>
        <source>%1: not printed by this ncu: %2</source>
        <translation>%1: von diesem ncu nicht ausgegeben: %2</translation>
    </message>
    <message>
        <source>Kernel launch</source>
        <translation>Kernel-Start</translation>
    </message>
</context>
<context>
    <name>kx::ui::ProfileRunner</name>
    <message>
        <source>Profiling was cancelled; nothing was stored.</source>
        <translation>Das Profilieren wurde abgebrochen; nichts wurde gespeichert.</translation>
    </message>
    <message>
        <source>kx profile stopped unexpectedly.</source>
        <translation>kx profile wurde unerwartet beendet.</translation>
    </message>
    <message>
        <source>The profile was stored.</source>
        <translation>Das Profil wurde gespeichert.</translation>
    </message>
    <message>
        <source>Nsight Compute (ncu) was not found.</source>
        <translation>Nsight Compute (ncu) wurde nicht gefunden.</translation>
    </message>
    <message>
        <source>No GPU can be used.</source>
        <translation>Keine GPU ist nutzbar.</translation>
    </message>
    <message>
        <source>kx profile failed (exit code %1).</source>
        <translation>kx profile ist fehlgeschlagen (Exit-Code %1).</translation>
    </message>
    <message>
        <source>%1 could not be started: %2</source>
        <translation>%1 konnte nicht gestartet werden: %2</translation>
    </message>
</context>
<context>
    <name>kx::ui::PromptTemplateCopier</name>
    <message>
        <source>Cannot create the folder %1.</source>
        <translation>Der Ordner %1 kann nicht angelegt werden.</translation>
    </message>
    <message>
        <source>Cannot copy %1 to %2.</source>
        <translation>%1 kann nicht nach %2 kopiert werden.</translation>
    </message>
</context>
<context>
    <name>kx::ui::ProposerConfig</name>
    <message>
        <source>template</source>
        <translation>Vorlage</translation>
    </message>
    <message>
        <source>LLM %1</source>
        <translation>LLM %1</translation>
    </message>
    <message>
        <source>(no model)</source>
        <translation>(kein Modell)</translation>
    </message>
    <message>
        <source>command %1</source>
        <translation>Befehl %1</translation>
    </message>
    <message>
        <source>(no command)</source>
        <translation>(kein Befehl)</translation>
    </message>
    <message>
        <source>(nothing)</source>
        <translation>(nichts)</translation>
    </message>
    <message>
        <source>mix: %1% template, %2% %3</source>
        <translation>Mischung: %1 % Vorlage, %2 % %3</translation>
    </message>
    <message>
        <source>API key from the system keychain</source>
        <translation>API-Schlüssel aus dem System-Schlüsselbund</translation>
    </message>
    <message>
        <source>no API key</source>
        <translation>kein API-Schlüssel</translation>
    </message>
    <message>
        <source>API key from $%1</source>
        <translation>API-Schlüssel aus $%1</translation>
    </message>
</context>
<context>
    <name>kx::ui::ProposerSettingsDialog</name>
    <message>
        <source>Language Model</source>
        <translation>Sprachmodell</translation>
    </message>
    <message>
        <source>Test Connection</source>
        <translation>Verbindung testen</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>Mix</source>
        <translation>Mischung</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>Prompt Templates</source>
        <translation>Prompt-Vorlagen</translation>
    </message>
    <message>
        <source>Proposer Settings</source>
        <translation>Vorschlagseinstellungen</translation>
    </message>
    <message>
        <source>Template (offline)</source>
        <translation>Vorlage (offline)</translation>
    </message>
    <message>
        <source>Language model</source>
        <translation>Sprachmodell</translation>
    </message>
    <message>
        <source>Mix of template and model (or command)</source>
        <translation>Mischung aus Vorlage und Modell (oder Befehl)</translation>
    </message>
    <message>
        <source>Base URL of an OpenAI-compatible API; requests go to {URL}/chat/completions. Local servers (llama.cpp, vLLM, Ollama) work too.</source>
        <translation>Basis-URL einer OpenAI-kompatiblen API; Anfragen gehen an {URL}/chat/completions. Lokale Server (llama.cpp, vLLM, Ollama) funktionieren auch.</translation>
    </message>
    <message>
        <source>Send one short request to the endpoint with this model and key</source>
        <translation>Eine kurze Anfrage mit diesem Modell und Schlüssel an den Endpunkt senden</translation>
    </message>
    <message>
        <source>Longest wait for the server to answer</source>
        <translation>Längste Wartezeit auf die Antwort des Servers</translation>
    </message>
    <message>
        <source>Extra attempts after rate limits (429), server and network errors</source>
        <translation>Weitere Versuche nach Ratenbegrenzungen (429), Server- und Netzwerkfehlern</translation>
    </message>
    <message>
        <source>Requests in flight at once</source>
        <translation>Gleichzeitig laufende Anfragen</translation>
    </message>
    <message>
        <source>For the cost estimate, in your currency per million tokens</source>
        <translation>Für die Kostenschätzung, in Ihrer Währung pro Million Tokens</translation>
    </message>
    <message>
        <source>Run with /bin/sh -c: reads the prompt on stdin and writes a candidate (CUDA code and a launch plan) on stdout</source>
        <translation>Läuft mit /bin/sh -c: liest den Prompt von stdin und schreibt einen Kandidaten (CUDA-Code und einen Startplan) nach stdout</translation>
    </message>
    <message>
        <source>Share of candidates asked of the model, or of the command when no model is set; the template proposer makes the rest</source>
        <translation>Anteil der Kandidaten, die beim Modell angefragt werden, oder beim Befehl, wenn kein Modell eingestellt ist; den Rest erzeugt der Vorlagen-Vorschlagsgeber</translation>
    </message>
    <message>
        <source>the installed templates</source>
        <translation>die installierten Vorlagen</translation>
    </message>
    <message>
        <source>&amp;Proposer:</source>
        <translation>&amp;Vorschlagsgeber:</translation>
    </message>
    <message>
        <source>E&amp;ndpoint:</source>
        <translation>&amp;Endpunkt:</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>&amp;Modell:</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API-Schlüssel:</translation>
    </message>
    <message>
        <source>&amp;Temperature:</source>
        <translation>&amp;Temperatur:</translation>
    </message>
    <message>
        <source>Ma&amp;x tokens:</source>
        <translation>Ma&amp;x. Tokens:</translation>
    </message>
    <message>
        <source>Time&amp;out:</source>
        <translation>&amp;Zeitlimit:</translation>
    </message>
    <message>
        <source>Retr&amp;ies:</source>
        <translation>&amp;Wiederholungen:</translation>
    </message>
    <message>
        <source>Con&amp;current requests:</source>
        <translation>&amp;Gleichzeitige Anfragen:</translation>
    </message>
    <message>
        <source>Price per 1M prompt tokens:</source>
        <translation>Preis pro 1 Mio. Prompt-Tokens:</translation>
    </message>
    <message>
        <source>Price per 1M completion tokens:</source>
        <translation>Preis pro 1 Mio. Antwort-Tokens:</translation>
    </message>
    <message>
        <source>Command &amp;line:</source>
        <translation>Befehls&amp;zeile:</translation>
    </message>
    <message>
        <source>Timeo&amp;ut:</source>
        <translation>Zeit&amp;limit:</translation>
    </message>
    <message>
        <source>S&amp;hare of model or command:</source>
        <translation>&amp;Anteil von Modell oder Befehl:</translation>
    </message>
    <message>
        <source>Bro&amp;wse…</source>
        <translation>&amp;Durchsuchen …</translation>
    </message>
    <message>
        <source>Use the templates in another folder</source>
        <translation>Die Vorlagen in einem anderen Ordner verwenden</translation>
    </message>
    <message>
        <source>Cop&amp;y Templates To…</source>
        <translation>Vorlagen &amp;kopieren nach …</translation>
    </message>
    <message>
        <source>Copy the installed prompt templates into a folder of your choice to edit them there</source>
        <translation>Die installierten Prompt-Vorlagen in einen Ordner Ihrer Wahl kopieren, um sie dort zu bearbeiten</translation>
    </message>
    <message>
        <source>&amp;Folder:</source>
        <translation>&amp;Ordner:</translation>
    </message>
    <message>
        <source>Varies the op&apos;s kernel templates; needs no network and costs nothing.</source>
        <translation>Variiert die Kernel-Vorlagen der Op; braucht kein Netzwerk und kostet nichts.</translation>
    </message>
    <message>
        <source>Asks an OpenAI-compatible chat model for every candidate.</source>
        <translation>Fragt für jeden Kandidaten ein OpenAI-kompatibles Chat-Modell.</translation>
    </message>
    <message>
        <source>Runs a program of yours with the prompt on stdin; it writes the candidate on stdout.</source>
        <translation>Startet ein eigenes Programm mit dem Prompt auf stdin; es schreibt den Kandidaten nach stdout.</translation>
    </message>
    <message>
        <source>The template proposer makes most candidates; a share goes to the model, or to the command when no model is set. The template proposer steps in when they fail.</source>
        <translation>Der Vorlagen-Vorschlagsgeber erzeugt die meisten Kandidaten; ein Anteil geht an das Modell, oder an den Befehl, wenn kein Modell eingestellt ist. Schlagen diese fehl, springt der Vorlagen-Vorschlagsgeber ein.</translation>
    </message>
    <message>
        <source>Testing the connection to %1…</source>
        <translation>Verbindung zu %1 wird getestet …</translation>
    </message>
    <message>
        <source>The connection test needs the API key: %1</source>
        <translation>Der Verbindungstest braucht den API-Schlüssel: %1</translation>
    </message>
    <message>
        <source>Copying the prompt templates…</source>
        <translation>Die Prompt-Vorlagen werden kopiert …</translation>
    </message>
    <message numerus="yes">
        <source>Copied %n template(s) to %1; edit them there.</source>
        <translation>
            <numerusform>%n Vorlage nach %1 kopiert; bearbeiten Sie sie dort.</numerusform>
            <numerusform>%n Vorlagen nach %1 kopiert; bearbeiten Sie sie dort.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Kept %n file(s) that were there already.</source>
        <translation>
            <numerusform>%n bereits vorhandene Datei behalten.</numerusform>
            <numerusform>%n bereits vorhandene Dateien behalten.</numerusform>
        </translation>
    </message>
    <message>
        <source>Prompt Templates Folder</source>
        <translation>Ordner der Prompt-Vorlagen</translation>
    </message>
    <message>
        <source>Copy Prompt Templates To</source>
        <translation>Prompt-Vorlagen kopieren nach</translation>
    </message>
</context>
<context>
    <name>kx::ui::ProvenanceView</name>
    <message>
        <source>Prompt</source>
        <translation>Prompt</translation>
    </message>
    <message>
        <source>Raw response</source>
        <translation>Rohe Antwort</translation>
    </message>
    <message>
        <source>Made by the language model %1.</source>
        <translation>Erzeugt vom Sprachmodell %1.</translation>
    </message>
    <message>
        <source>Made by the command %1.</source>
        <translation>Erzeugt vom Befehl %1.</translation>
    </message>
    <message>
        <source>Made by the %1 proposer.</source>
        <translation>Erzeugt vom Vorschlagsgeber %1.</translation>
    </message>
    <message>
        <source>Prompt SHA-256: %1</source>
        <translation>SHA-256 des Prompts: %1</translation>
    </message>
</context>
<context>
    <name>kx::ui::PyTorchImport</name>
    <message>
        <source>Open P&amp;yTorch Op…</source>
        <translation>P&amp;yTorch-Op öffnen …</translation>
    </message>
    <message>
        <source>Import a KernelBench-format PyTorch file (class Model, get_inputs, get_init_inputs)</source>
        <translation>Eine PyTorch-Datei im KernelBench-Format importieren (class Model, get_inputs, get_init_inputs)</translation>
    </message>
    <message>
        <source>Open PyTorch Op</source>
        <translation>PyTorch-Op öffnen</translation>
    </message>
    <message>
        <source>PyTorch problem files (*.py);;All files (*)</source>
        <translation>PyTorch-Problemdateien (*.py);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Tracing %1 with PyTorch…</source>
        <translation>%1 wird mit PyTorch verfolgt …</translation>
    </message>
    <message>
        <source>The import was cancelled.</source>
        <translation>Der Import wurde abgebrochen.</translation>
    </message>
    <message>
        <source>%1 is Python code, and importing it runs it. bubblewrap (bwrap) is not installed, so it cannot run in a sandbox: it would run with all of your rights (your files, the network, your keys).

Install bubblewrap to import files confined. Run this file unconfined anyway?</source>
        <translation>%1 ist Python-Code, und der Import führt ihn aus. bubblewrap (bwrap) ist nicht installiert, deshalb kann er nicht in einer Sandbox laufen: Er liefe mit allen Ihren Rechten (Ihre Dateien, das Netz, Ihre Schlüssel).

Installieren Sie bubblewrap, um Dateien abgeschottet zu importieren. Diese Datei trotzdem ohne Sandbox ausführen?</translation>
    </message>
    <message>
        <source>Cannot import %1:
%2</source>
        <translation>%1 kann nicht importiert werden:
%2</translation>
    </message>
    <message>
        <source>%1 imported, but the code templates cannot generate it:
%2

Open it anyway (for a language model proposer)?</source>
        <translation>%1 ist importiert, aber die Code-Vorlagen können sie nicht erzeugen:
%2

Trotzdem öffnen (für einen Sprachmodell-Vorschlagsgeber)?</translation>
    </message>
</context>
<context>
    <name>kx::ui::RecentArchives</name>
    <message>
        <source>&amp;Clear List</source>
        <translation>Liste &amp;leeren</translation>
    </message>
</context>
<context>
    <name>kx::ui::ReviewEvidence</name>
    <message>
        <source>Not evaluated.</source>
        <translation>Nicht bewertet.</translation>
    </message>
    <message>
        <source>Speedup</source>
        <translation>Beschleunigung</translation>
    </message>
    <message>
        <source>Kernel median (CUDA events)</source>
        <translation>Kernel-Median (CUDA-Events)</translation>
    </message>
    <message>
        <source>Kernel median (wall clock)</source>
        <translation>Kernel-Median (Wanduhr)</translation>
    </message>
    <message>
        <source>%1 ms (%2× the event time)</source>
        <translation>%1 ms (%2× die Event-Zeit)</translation>
    </message>
    <message>
        <source>Reference median</source>
        <translation>Referenz-Median</translation>
    </message>
    <message>
        <source>Roofline floor</source>
        <translation>Roofline-Untergrenze</translation>
    </message>
    <message>
        <source>%1 ms: measured %2 ms is above it</source>
        <translation>%1 ms: gemessene %2 ms liegen darüber</translation>
    </message>
    <message>
        <source>Samples</source>
        <translation>Messungen</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Checks passed</source>
        <translation>Bestandene Prüfungen</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>Failed check</source>
        <translation>Fehlgeschlagene Prüfung</translation>
    </message>
    <message>
        <source>Flag: %1</source>
        <translation>Markierung: %1</translation>
    </message>
    <message>
        <source>Eager baseline</source>
        <translation>Eager-Referenz</translation>
    </message>
    <message>
        <source>Inductor baseline</source>
        <translation>Inductor-Referenz</translation>
    </message>
    <message>
        <source>timed with the kernel (older evaluation)</source>
        <translation>mit dem Kernel gemessen (ältere Bewertung)</translation>
    </message>
    <message>
        <source>Precision policy</source>
        <translation>Genauigkeitsrichtlinie</translation>
    </message>
    <message>
        <source>Speedup over Inductor</source>
        <translation>Beschleunigung gegenüber Inductor</translation>
    </message>
    <message>
        <source>Standing</source>
        <translation>Einordnung</translation>
    </message>
    <message>
        <source>%1 ms: measured %2 ms is %3× below it, more than timing slack explains</source>
        <translation>%1 ms: gemessene %2 ms liegen %3× darunter, mehr als Messtoleranz erklärt</translation>
    </message>
    <message>
        <source>%1 ms: measured %2 ms is within timing slack (%3 of the floor)</source>
        <translation>%1 ms: gemessene %2 ms liegen innerhalb der Messtoleranz (%3 der Untergrenze)</translation>
    </message>
    <message>
        <source>Trial inputs</source>
        <translation>Eingaben der Versuche</translation>
    </message>
    <message>
        <source>Error vs float64 (p99 relative)</source>
        <translation>Fehler gegenüber float64 (p99 relativ)</translation>
    </message>
    <message>
        <source>%1, fp32 reference %2</source>
        <translation>%1, fp32-Referenz %2</translation>
    </message>
    <message>
        <source>Eager with TF32 vs float64 (p99 relative)</source>
        <translation>Eager mit TF32 gegenüber float64 (p99 relativ)</translation>
    </message>
</context>
<context>
    <name>kx::ui::ReviewPage</name>
    <message>
        <source>Accept…</source>
        <translation>Annehmen …</translation>
    </message>
    <message>
        <source>Reject…</source>
        <translation>Ablehnen …</translation>
    </message>
    <message>
        <source>The review queue could not be read: %1</source>
        <translation>Die Prüfliste konnte nicht gelesen werden: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s) await review, most suspicious first.</source>
        <translation>
            <numerusform>%n Kernel wartet auf Prüfung, verdächtigste zuerst.</numerusform>
            <numerusform>%n Kernels warten auf Prüfung, verdächtigste zuerst.</numerusform>
        </translation>
    </message>
    <message>
        <source>Select a kernel to see the evidence.</source>
        <translation>Wählen Sie einen Kernel, um die Belege zu sehen.</translation>
    </message>
    <message>
        <source>Accept the selected kernels (A)</source>
        <translation>Die ausgewählten Kernel annehmen (A)</translation>
    </message>
    <message>
        <source>Reject the selected kernels (R)</source>
        <translation>Die ausgewählten Kernel ablehnen (R)</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>Profilieren</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>GPU </source>
        <translation>GPU </translation>
    </message>
    <message>
        <source>The GPU (CUDA device number) to profile on</source>
        <translation>Die GPU (CUDA-Gerätenummer), auf der profiliert wird</translation>
    </message>
    <message>
        <source>Stop profiling; nothing is stored</source>
        <translation>Profilieren beenden; nichts wird gespeichert</translation>
    </message>
    <message>
        <source>The archive is open read-only, and a profile is stored in it. Open it for writing (File &gt; Open Archive) to profile kernels.</source>
        <translation>Das Archiv ist schreibgeschützt geöffnet, ein Profil wird aber darin gespeichert. Öffnen Sie es zum Schreiben (Datei &gt; Archiv öffnen), um Kernel zu profilieren.</translation>
    </message>
    <message>
        <source>Run one launch of the selected kernel and of the eager reference under Nsight Compute (ncu) and store what the hardware measured</source>
        <translation>Einen Start des ausgewählten Kernels und der Eager-Referenz unter Nsight Compute (ncu) ausführen und speichern, was die Hardware gemessen hat</translation>
    </message>
    <message>
        <source>Profiling %1 on GPU %2 with Nsight Compute…
</source>
        <translation>%1 wird auf GPU %2 mit Nsight Compute profiliert …
</translation>
    </message>
</context>
<context>
    <name>kx::ui::ReviewQueueModel</name>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>Op</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Flags</source>
        <translation>Markierungen</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>Beschreibung</translation>
    </message>
    <message>
        <source>× eager</source>
        <translation>× Eager</translation>
    </message>
    <message>
        <source>× Inductor</source>
        <translation>× Inductor</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Genauigkeit</translation>
    </message>
</context>
<context>
    <name>kx::ui::RunCostLabel</name>
    <message>
        <source>Run %1: its model costs cannot be read: %2</source>
        <translation>Lauf %1: Seine Modellkosten können nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>Run %1: no candidates from models or commands.</source>
        <translation>Lauf %1: keine Kandidaten von Modellen oder Befehlen.</translation>
    </message>
    <message numerus="yes">
        <source>Run %1: %n candidate(s) from models or commands</source>
        <translation>
            <numerusform>Lauf %1: %n Kandidat von Modellen oder Befehlen</numerusform>
            <numerusform>Lauf %1: %n Kandidaten von Modellen oder Befehlen</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>kx::ui::RunPanel</name>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>keine Grenze</translation>
    </message>
    <message>
        <source>never</source>
        <translation>nie</translation>
    </message>
    <message>
        <source>&amp;Start Search</source>
        <translation>Suche &amp;starten</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>&amp;Pausieren</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>&amp;Fortsetzen</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>S&amp;topp</translation>
    </message>
    <message>
        <source>&amp;Continue Run</source>
        <translation>Lauf &amp;weiterführen</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>all</source>
        <translation>alle</translation>
    </message>
    <message>
        <source>GPUs to search on: empty for all, or device numbers such as 0,1</source>
        <translation>GPUs für die Suche: leer für alle, oder Gerätenummern wie 0,1</translation>
    </message>
    <message>
        <source>Start a search on the chosen op (Ctrl+R)</source>
        <translation>Eine Suche für die gewählte Op starten (Strg+R)</translation>
    </message>
    <message>
        <source>Pause after the current evaluations (F6)</source>
        <translation>Nach den laufenden Bewertungen pausieren (F6)</translation>
    </message>
    <message>
        <source>Resume the paused search (Shift+F6)</source>
        <translation>Die pausierte Suche fortsetzen (Umschalt+F6)</translation>
    </message>
    <message>
        <source>Stop after the evaluations in flight; the run can be continued (Shift+F5)</source>
        <translation>Nach den laufenden Bewertungen anhalten; der Lauf kann weitergeführt werden (Umschalt+F5)</translation>
    </message>
    <message>
        <source>Continue the run selected in the lineage with its own settings (Ctrl+F5)</source>
        <translation>Den im Stammbaum gewählten Lauf mit seinen eigenen Einstellungen weiterführen (Strg+F5)</translation>
    </message>
    <message>
        <source>Searching: run %1.</source>
        <translation>Suche läuft: Lauf %1.</translation>
    </message>
    <message>
        <source>No GPU to search on: %1
Browsing the archive still works.</source>
        <translation>Keine GPU für die Suche: %1
Das Archiv lässt sich weiterhin durchsehen.</translation>
    </message>
    <message>
        <source>The search could not start: %1</source>
        <translation>Die Suche konnte nicht starten: %1</translation>
    </message>
    <message>
        <source>Finished: %1.</source>
        <translation>Beendet: %1.</translation>
    </message>
    <message>
        <source>Stopped. Continue the run to go on from here.</source>
        <translation>Angehalten. Führen Sie den Lauf weiter, um von hier fortzufahren.</translation>
    </message>
    <message>
        <source>The search failed: %1</source>
        <translation>Die Suche ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>Wählen …</translation>
    </message>
    <message>
        <source>Open an op (Ctrl+Shift+O)</source>
        <translation>Eine Op öffnen (Strg+Umschalt+O)</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>Budget</translation>
    </message>
    <message>
        <source>&amp;Generations:</source>
        <translation>&amp;Generationen:</translation>
    </message>
    <message>
        <source>C&amp;andidates:</source>
        <translation>K&amp;andidaten:</translation>
    </message>
    <message>
        <source>&amp;Time:</source>
        <translation>&amp;Zeit:</translation>
    </message>
    <message>
        <source>&amp;No improvement for:</source>
        <translation>&amp;Keine Verbesserung seit:</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>Suche</translation>
    </message>
    <message>
        <source>S&amp;eed:</source>
        <translation>St&amp;artwert:</translation>
    </message>
    <message>
        <source>C&amp;hildren per generation:</source>
        <translation>&amp;Kinder pro Generation:</translation>
    </message>
    <message>
        <source>G&amp;PUs:</source>
        <translation>G&amp;PUs:</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; — %2</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; — %2</translation>
    </message>
    <message>
        <source>No op chosen: File ▸ Open Op…</source>
        <translation>Keine Op gewählt: Datei ▸ Op öffnen …</translation>
    </message>
    <message>
        <source>Choose an op first (File ▸ Open Op…).</source>
        <translation>Wählen Sie zuerst eine Op (Datei ▸ Op öffnen …).</translation>
    </message>
    <message>
        <source>Starting the GPU workers…</source>
        <translation>GPU-Worker werden gestartet …</translation>
    </message>
    <message>
        <source>Select a run in the lineage first.</source>
        <translation>Wählen Sie zuerst einen Lauf im Stammbaum.</translation>
    </message>
    <message>
        <source>Starting the GPU workers to continue run %1…</source>
        <translation>GPU-Worker werden gestartet, um Lauf %1 weiterzuführen …</translation>
    </message>
    <message>
        <source>%v of %m candidates</source>
        <translation>%v von %m Kandidaten</translation>
    </message>
    <message>
        <source>generation %v of %m</source>
        <translation>Generation %v von %m</translation>
    </message>
    <message>
        <source>generation %1</source>
        <translation>Generation %1</translation>
    </message>
    <message>
        <source>Proposed %1 · compiled %2 · verified %3 · failed %4</source>
        <translation>Vorgeschlagen %1 · kompiliert %2 · verifiziert %3 · fehlgeschlagen %4</translation>
    </message>
    <message>
        <source>About %1 left</source>
        <translation>Noch etwa %1</translation>
    </message>
    <message>
        <source>best %1 (%2)</source>
        <translation>bester %1 (%2)</translation>
    </message>
    <message>
        <source>Pro&amp;poser Settings…</source>
        <translation>&amp;Vorschlagseinstellungen …</translation>
    </message>
    <message>
        <source>Choose who proposes candidates: templates, a language model, a command or a mix (%1)</source>
        <translation>Wählen, wer Kandidaten vorschlägt: Vorlagen, ein Sprachmodell, ein Befehl oder eine Mischung (%1)</translation>
    </message>
    <message>
        <source>Stopped before the search began.</source>
        <translation>Angehalten, bevor die Suche begann.</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>Einstellungen …</translation>
    </message>
    <message>
        <source>Proposer: %1</source>
        <translation>Vorschlagsgeber: %1</translation>
    </message>
    <message>
        <source>Endpoint: %1</source>
        <translation>Endpunkt: %1</translation>
    </message>
    <message>
        <source>Command: %1</source>
        <translation>Befehl: %1</translation>
    </message>
    <message>
        <source>Reading the API key from the system keychain…</source>
        <translation>Der API-Schlüssel wird aus dem System-Schlüsselbund gelesen …</translation>
    </message>
    <message>
        <source>model: %1</source>
        <translation>Modell: %1</translation>
    </message>
    <message>
        <source>Notes of the run: how the baselines are timed, what could not be prepared.</source>
        <translation>Notizen des Laufs: wie die Referenzen gemessen werden, was nicht vorbereitet werden konnte.</translation>
    </message>
    <message>
        <source>Run %1 started.</source>
        <translation>Lauf %1 gestartet.</translation>
    </message>
    <message>
        <source>Workers</source>
        <translation>Worker</translation>
    </message>
    <message>
        <source>Log (%1 new)</source>
        <translation>Protokoll (%1 neu)</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>kx worker on this computer</source>
        <translation>kx worker auf diesem Rechner</translation>
    </message>
    <message>
        <source>The program started once per GPU, with --device N added; written as in a shell. Empty: this computer&apos;s kx worker. For GPUs reachable by SSH: ssh gpu-box kx worker</source>
        <translation>Das Programm, das je GPU einmal gestartet wird, mit angehängtem --device N; geschrieben wie in einer Shell. Leer: kx worker dieses Rechners. Für GPUs, die per SSH erreichbar sind: ssh gpu-box kx worker</translation>
    </message>
    <message>
        <source>Wor&amp;ker:</source>
        <translation>W&amp;orker:</translation>
    </message>
    <message>
        <source>Worker: %1</source>
        <translation>Worker: %1</translation>
    </message>
    <message>
        <source>kx worker on the hosts</source>
        <translation>kx worker auf den Rechnern</translation>
    </message>
</context>
<context>
    <name>kx::ui::SampleArchive</name>
    <message>
        <source>The sample archive is not installed.</source>
        <translation>Das Beispielarchiv ist nicht installiert.</translation>
    </message>
    <message>
        <source>The sample archive could not be made from %1: %2</source>
        <translation>Das Beispielarchiv konnte nicht aus %1 erstellt werden: %2</translation>
    </message>
    <message>
        <source>cannot create the folder of %1</source>
        <translation>der Ordner von %1 kann nicht angelegt werden</translation>
    </message>
</context>
<context>
    <name>kx::ui::SearchBridge</name>
    <message>
        <source>No archive is open.</source>
        <translation>Kein Archiv ist geöffnet.</translation>
    </message>
    <message>
        <source>No worker program is set.</source>
        <translation>Kein Worker-Programm ist eingestellt.</translation>
    </message>
    <message>
        <source>Stopped before the search began.</source>
        <translation>Angehalten, bevor die Suche begann.</translation>
    </message>
    <message>
        <source>The proposer cannot be used: %1</source>
        <translation>Der Vorschlagsgeber kann nicht verwendet werden: %1</translation>
    </message>
    <message>
        <source>%1 is open read-only, and a search writes to its archive. Open it with File &gt; Open Archive to search.</source>
        <translation>%1 ist schreibgeschützt geöffnet, eine Suche schreibt aber in das Archiv. Zum Suchen über Datei &gt; Archiv öffnen … erneut öffnen.</translation>
    </message>
    <message>
        <source>This build has no NVRTC (the CUDA toolkit was missing when it was built): searching and evaluating need it.</source>
        <translation>Dieser Build hat kein NVRTC (das CUDA-Toolkit fehlte beim Bauen): Suchen und Auswerten brauchen es.</translation>
    </message>
</context>
<context>
    <name>kx::ui::SecretStore</name>
    <message>
        <source>No API key is saved in the system keychain: save one in the proposer settings, or use an environment variable.</source>
        <translation>Im System-Schlüsselbund ist kein API-Schlüssel gespeichert: Speichern Sie einen in den Vorschlagseinstellungen oder verwenden Sie eine Umgebungsvariable.</translation>
    </message>
    <message>
        <source>The system keychain is unavailable%1. An API key entered in the proposer settings is kept for this session only; an environment variable works too.</source>
        <translation>Der System-Schlüsselbund ist nicht verfügbar%1. Ein in den Vorschlagseinstellungen eingegebener API-Schlüssel gilt nur für diese Sitzung; eine Umgebungsvariable funktioniert auch.</translation>
    </message>
    <message>
        <source>The system keychain failed%1: use an environment variable for the API key.</source>
        <translation>Der System-Schlüsselbund ist fehlgeschlagen%1: Verwenden Sie eine Umgebungsvariable für den API-Schlüssel.</translation>
    </message>
</context>
<context>
    <name>kx::ui::VerdictCommand</name>
    <message>
        <source>Accept %1</source>
        <translation>%1 annehmen</translation>
    </message>
    <message>
        <source>Reject %1</source>
        <translation>%1 ablehnen</translation>
    </message>
</context>
<context>
    <name>kx::ui::VerdictController</name>
    <message>
        <source>Verdicts need an archive opened for writing.</source>
        <translation>Urteile brauchen ein zum Schreiben geöffnetes Archiv.</translation>
    </message>
    <message numerus="yes">
        <source>Verdict on %n kernel(s)</source>
        <translation>
            <numerusform>Urteil über %n Kernel</numerusform>
            <numerusform>Urteil über %n Kernel</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>kx::ui::VerdictDialog</name>
    <message>
        <source>&amp;Accept</source>
        <translation>&amp;Annehmen</translation>
    </message>
    <message>
        <source>&amp;Reject</source>
        <translation>A&amp;blehnen</translation>
    </message>
    <message>
        <source>Verdict on %1</source>
        <translation>Urteil über %1</translation>
    </message>
    <message>
        <source>What you checked, and why you decided so</source>
        <translation>Was Sie geprüft haben und warum Sie so entschieden haben</translation>
    </message>
    <message>
        <source>Verdict:</source>
        <translation>Urteil:</translation>
    </message>
    <message>
        <source>Reason:</source>
        <translation>Grund:</translation>
    </message>
    <message>
        <source>Note:</source>
        <translation>Notiz:</translation>
    </message>
    <message>
        <source>Record Verdict</source>
        <translation>Urteil speichern</translation>
    </message>
    <message>
        <source>Verified speedup</source>
        <translation>Bestätigte Beschleunigung</translation>
    </message>
    <message>
        <source>Incorrect results</source>
        <translation>Falsche Ergebnisse</translation>
    </message>
    <message>
        <source>Suspicious timing</source>
        <translation>Verdächtige Zeitmessung</translation>
    </message>
    <message>
        <source>Exploits the benchmark harness</source>
        <translation>Nutzt die Messumgebung aus</translation>
    </message>
    <message>
        <source>Does not generalise to other shapes</source>
        <translation>Gilt nicht für andere Formen</translation>
    </message>
    <message>
        <source>Duplicate of another kernel</source>
        <translation>Duplikat eines anderen Kernels</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>Anderes</translation>
    </message>
    <message>
        <source>Computes in reduced precision</source>
        <translation>Rechnet mit verringerter Genauigkeit</translation>
    </message>
</context>
<context>
    <name>kx::ui::WorkerPlacementEditor</name>
    <message>
        <source>This computer</source>
        <translation>Diesem Rechner</translation>
    </message>
    <message>
        <source>SSH hosts</source>
        <translation>SSH-Rechnern</translation>
    </message>
    <message>
        <source>Slurm jobs</source>
        <translation>Slurm-Jobs</translation>
    </message>
    <message>
        <source>gpu-a:0,1 gpu-b:3</source>
        <translation>gpu-a:0,1 gpu-b:3</translation>
    </message>
    <message>
        <source>Hosts reached by SSH with a key, each with the CUDA devices that get a worker (HOST or HOST:0,1), separated by spaces</source>
        <translation>Per SSH mit Schlüssel erreichbare Rechner, jeweils mit den CUDA-Geräten, die einen Worker bekommen (RECHNER oder RECHNER:0,1), durch Leerzeichen getrennt</translation>
    </message>
    <message>
        <source> workers</source>
        <translation> Worker</translation>
    </message>
    <message>
        <source>Slurm job steps (srun), one GPU each</source>
        <translation>Slurm-Jobschritte (srun) mit je einer GPU</translation>
    </message>
    <message>
        <source>default partition</source>
        <translation>Standardpartition</translation>
    </message>
    <message>
        <source>account</source>
        <translation>Konto</translation>
    </message>
    <message>
        <source>time limit, e.g. 2:00:00</source>
        <translation>Zeitlimit, z. B. 2:00:00</translation>
    </message>
    <message>
        <source>SSH hosts: %1</source>
        <translation>SSH-Rechner: %1</translation>
    </message>
    <message>
        <source>SSH hosts: name at least one host, e.g. gpu-a:0,1</source>
        <translation>SSH-Rechner: mindestens einen Rechner angeben, z. B. gpu-a:0,1</translation>
    </message>
</context>
<context>
    <name>kx::ui::WorkersList</name>
    <message>
        <source>GPU #</source>
        <translation>GPU-Nr.</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Restarts</source>
        <translation>Neustarts</translation>
    </message>
    <message>
        <source>Last error</source>
        <translation>Letzter Fehler</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>startet</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>bereit</translation>
    </message>
    <message>
        <source>busy</source>
        <translation>beschäftigt</translation>
    </message>
    <message>
        <source>restarting</source>
        <translation>startet neu</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>ausgefallen</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>beendet</translation>
    </message>
    <message>
        <source>(unknown)</source>
        <translation>(unbekannt)</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Rechner</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Browse the kernel archive: every CUDA kernel evaluated, with its results.</source>
        <translation>Das Kernel-Archiv durchsuchen: jeder bewertete CUDA-Kernel mit seinen Ergebnissen.</translation>
    </message>
    <message>
        <source>Check that the application works, then exit.</source>
        <translation>Prüfen, ob die Anwendung funktioniert, dann beenden.</translation>
    </message>
    <message>
        <source>Save an image of the main window showing ARCHIVE, then exit.</source>
        <translation>Ein Bild des Hauptfensters mit ARCHIVE speichern, dann beenden.</translation>
    </message>
    <message>
        <source>image</source>
        <translation>Bild</translation>
    </message>
    <message>
        <source>The archive to open (.kxdb).</source>
        <translation>Das zu öffnende Archiv (.kxdb).</translation>
    </message>
    <message>
        <source>Give at most one archive.</source>
        <translation>Geben Sie höchstens ein Archiv an.</translation>
    </message>
    <message>
        <source>--screenshot needs an archive.</source>
        <translation>--screenshot braucht ein Archiv.</translation>
    </message>
    <message>
        <source>page</source>
        <translation>Seite</translation>
    </message>
    <message>
        <source>With --screenshot: the page to show (kernels, lineage, diff, plots or review).</source>
        <translation>Mit --screenshot: die anzuzeigende Seite (kernels, lineage, diff, plots oder review).</translation>
    </message>
    <message>
        <source>With --screenshot: the kernel to select (an id or a unique prefix; default: the fastest).</source>
        <translation>Mit --screenshot: der auszuwählende Kernel (eine ID oder ein eindeutiges Präfix; Vorgabe: der schnellste).</translation>
    </message>
    <message>
        <source>id</source>
        <translation>id</translation>
    </message>
</context>
</TS>
