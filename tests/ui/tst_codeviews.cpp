// Code views: CUDA highlighting and colours that follow the palette.
#include "ui/common/cudalexer.h"
#include "ui/kernels/kernelsourceview.h"

#include <QPalette>
#include <QTest>

using namespace kx::ui;

class TestCodeViews : public QObject
{
    Q_OBJECT

private slots:
    void cudaKeywords_data();
    void cudaKeywords();
    void highlightsCudaSource_data();
    void highlightsCudaSource();
    void followsDarkPalette();
    void showsTextReadOnly();
};

void TestCodeViews::cudaKeywords_data()
{
    QTest::addColumn<int>("set");
    QTest::addColumn<QString>("word");
    for (const char *word : {"__global__", "__device__", "__shared__", "__restrict__", "__launch_bounds__",
                             "__forceinline__", "int", "template"})
        QTest::newRow(word) << 1 << QString::fromLatin1(word);
    for (const char *word : {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__syncthreads",
                             "__shfl_down_sync", "__shfl_xor_sync", "atomicAdd", "__ldg", "__expf"})
        QTest::newRow(word) << 2 << QString::fromLatin1(word);
    for (const char *word : {"float4", "half2", "__nv_bfloat16", "dim3"})
        QTest::newRow(word) << 4 << QString::fromLatin1(word);
}

void TestCodeViews::cudaKeywords()
{
    QFETCH(int, set);
    QFETCH(QString, word);
    CudaLexer lexer;
    const QStringList words = QString::fromLatin1(lexer.keywords(set)).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QVERIFY2(words.contains(word), qPrintable(word));
    QCOMPARE(QString::fromLatin1(lexer.language()), QStringLiteral("CUDA"));
}

void TestCodeViews::highlightsCudaSource_data()
{
    QTest::addColumn<QString>("word");
    QTest::addColumn<int>("style");
    QTest::newRow("qualifier") << "__global__" << int(QsciLexerCPP::Keyword);
    QTest::newRow("restrict") << "__restrict__" << int(QsciLexerCPP::Keyword);
    QTest::newRow("built-in variable") << "threadIdx" << int(QsciLexerCPP::KeywordSet2);
    QTest::newRow("warp shuffle") << "__shfl_down_sync" << int(QsciLexerCPP::KeywordSet2);
    QTest::newRow("vector type") << "float4" << int(QsciLexerCPP::GlobalClass);
    QTest::newRow("plain identifier") << "total" << int(QsciLexerCPP::Identifier);
}

void TestCodeViews::highlightsCudaSource()
{
    QFETCH(QString, word);
    QFETCH(int, style);
    const QString source = QStringLiteral("extern \"C\" __global__ void k(const float4 *__restrict__ x, float *y)\n"
                                          "{\n"
                                          "    float total = x[threadIdx.x].x;\n"
                                          "    total += __shfl_down_sync(0xffffffffu, total, 16);\n"
                                          "    y[0] = total;\n"
                                          "}\n");
    KernelSourceView view;
    view.setCode(source);
    view.SendScintilla(QsciScintillaBase::SCI_COLOURISE, 0, -1);
    const int position = int(source.toUtf8().indexOf(word.toUtf8()));
    QVERIFY(position >= 0);
    QCOMPARE(int(view.SendScintilla(QsciScintillaBase::SCI_GETSTYLEAT, position)), style);
}

void TestCodeViews::followsDarkPalette()
{
    KernelSourceView view;
    CudaLexer *lexer = view.cudaLexer();
    QVERIFY(lexer);
    const QColor lightKeyword = lexer->color(QsciLexerCPP::Keyword);

    QPalette dark = view.palette();
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Text, QColor(220, 220, 220));
    view.setPalette(dark);
    QCOMPARE(lexer->paper(QsciLexerCPP::Keyword), QColor(30, 30, 30));
    QCOMPARE(lexer->color(QsciLexerCPP::Identifier), QColor(220, 220, 220));
    const QColor darkKeyword = lexer->color(QsciLexerCPP::Keyword);
    QVERIFY2(darkKeyword.lightness() > 128, qPrintable(darkKeyword.name()));
    QCOMPARE(darkKeyword.hslHue(), lightKeyword.hslHue());
}

void TestCodeViews::showsTextReadOnly()
{
    KernelSourceView view;
    QVERIFY(view.isReadOnly());
    view.setCode(QStringLiteral("__global__ void k() {}\n"));
    QCOMPARE(view.text(), QStringLiteral("__global__ void k() {}\n"));
    QVERIFY(view.isReadOnly());
    view.setCode(QString());
    QCOMPARE(view.text(), QString());
}

QTEST_MAIN(TestCodeViews)
#include "tst_codeviews.moc"
