package lang

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle grammar. These types are the raw parse tree; parse.go
// converts them into the public AST (ast.go), which carries source ranges
// and typed values.
//
//	File  = (Stmt | ";" | Newline)*
//	Stmt  = Ident (Arg | ",")* Block?
//	Block = "{" (Stmt | ";" | Newline)* "}"
//	Arg   = Number | Clock | String | List | Group | Ident | Op
//	List  = "[" (Item ("," Item)* ","?)? "]"
//	Group = "(" (Item ("," Item)* ","?)? ")"
//	Item  = Arg+

type gFile struct {
	Stmts []*gStmt `parser:"( @@ | ';' | Newline )*"`
}

type gStmt struct {
	Tokens []lexer.Token
	Key    string      `parser:"@Ident"`
	Args   []*gStmtArg `parser:"@@*"`
	Body   *gBlock     `parser:"@@?"`
}

// gStmtArg is an argument at statement level, where a bare comma is allowed
// (`report run_days, cost`); inside brackets commas separate items.
type gStmtArg struct {
	Tokens []lexer.Token
	Arg    *gArg   `parser:"  @@"`
	Comma  *string `parser:"| @Comma"`
}

type gBlock struct {
	Tokens []lexer.Token
	Stmts  []*gStmt `parser:"'{' ( @@ | ';' | Newline )* '}'"`
}

type gArg struct {
	Tokens []lexer.Token
	Number *string `parser:"  @Number"`
	Clock  *string `parser:"| @Clock"`
	String *string `parser:"| @String"`
	List   *gList  `parser:"| @@"`
	Group  *gGroup `parser:"| @@"`
	Ident  *string `parser:"| @Ident"`
	Op     *string `parser:"| @Op"`
}

type gList struct {
	Tokens []lexer.Token
	Items  []*gItem `parser:"'[' ( @@ ( Comma @@ )* Comma? )? ']'"`
}

type gGroup struct {
	Tokens []lexer.Token
	Items  []*gItem `parser:"'(' ( @@ ( Comma @@ )* Comma? )? ')'"`
}

type gItem struct {
	Tokens []lexer.Token
	Args   []*gArg `parser:"@@+"`
}

// gValue is the entry point for a lone value (pwrc run --set NAME=VALUE).
type gValue struct {
	Args []*gStmtArg `parser:"@@*"`
}

var (
	fileParser  = participle.MustBuild[gFile](participle.Lexer(lexRules), participle.UseLookahead(2))
	valueParser = participle.MustBuild[gValue](participle.Lexer(lexRules), participle.UseLookahead(2))
)
