<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
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
        <source>Speedup</source>
        <translation>Beschleunigung</translation>
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
</context>
<context>
    <name>kx::ui::MainWindow</name>
    <message>
        <source>Kernel archives (*.kxdb);;All files (*)</source>
        <translation>Kernel-Archive (*.kxdb);;Alle Dateien (*)</translation>
    </message>
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
        <source>&amp;Clear List</source>
        <translation>Liste &amp;leeren</translation>
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
</context>
</TS>
