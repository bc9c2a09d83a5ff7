// Word lists for telling what a text is about from how it is phrased. Written for English, the language of
// nearly every prompt tapedeck has recorded; a word in no list simply counts in full.
//
// - FUNCTION_WORDS carry grammar, not content: dropped from a prompt's search and from the content of a text.
// - REQUEST_WORDS are how one asks ("can you remind me what we decided about …"): dropped from a prompt's
//   search, since they say that something is asked, not what.
// - COMMON_WORDS are how one describes what is asked: frequent verbs, adjectives, adverbs, words of time, and
//   the few nouns that name nothing ("thing", "way", "example"). Sharing one says little ("keep", "new",
//   "often"): they count at a fraction of a rare word's weight (relevance.ts). Nouns that name a subject
//   ("memory", "image", "database") are not in it: they are what a question is about.

function set(text: string): ReadonlySet<string> {
  return new Set(text.split(/\s+/).filter(Boolean));
}

export const FUNCTION_WORDS = set(`
a an the and or but nor if so yet of to in on at by for from with without within about above below as into
onto upon than then that this these those there here it its is are was were be been being am do does did done
doing have has had having i me my mine myself we us our ours ourselves you your yours yourself he him his she
her hers they them their theirs what which who whom whose when where why how all any some no not too very just
also only again still even ever now up down out off over under can could will would shall should may might
must let lets i'm i've i'll i'd you're you've you'll you'd we're we'll we've we'd he's she's it's that's
there's here's what's who's where's when's how's it'll don't doesn't didn't isn't aren't wasn't weren't won't
can't couldn't wouldn't shouldn't haven't hasn't hadn't don t s ll ve re d m o each every either neither both
such same other another own one ones much many more most less least few lot lots via per vs etc ie eg
because since while until unless though although whether after before during between among through across
against toward towards around along beside besides near like unlike yes no ok okay
`);

export const REQUEST_WORDS = set(`
please pls plz thanks thank tell remind reminder remember recall know knew known explain describe show give
gave say said says ask asked asking wonder wondering wondered think thought guess suppose curious want wanted
need needed help helping quick quickly question questions answer again exactly actually really basically
anyone someone somebody anybody something anything everything nothing thing things stuff way ways bit today right now currently again already still hey hi hello find look lookup check see get got
figure decide decided decision agree agreed mean means meant meaning happen happens happened going gonna
wanna
`);

export const COMMON_WORDS = set(`
time times day days week weeks month months year years hour hours minute minutes second seconds moment
morning afternoon evening night today tomorrow yesterday weekend date dates period while ago soon later early
late often always never sometimes usually rarely once twice daily weekly monthly yearly hourly recently
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
september october november december
good bad new old big small large little long short high low fast slow quick easy hard simple complex best
better worse worst first last next previous final whole full empty open closed main different similar same
usual normal common general special specific certain sure able possible likely important major minor real
true false right wrong correct exact proper clear clean free safe ready current recent latest available
enough extra total entire single double multiple several various own public private local global
internal external direct automatic manual default standard basic advanced actual original typical
instead otherwise anyway
make made makes making take took takes taking taken use used uses using work works worked working run runs
ran running start starts started starting stop stops stopped stopping end ends ended ending set sets
setting put puts putting keep keeps kept keeping go goes went gone come comes came coming get gets got
getting give gives gave given giving call calls called calling try tries tried trying add adds added adding
remove removes removed removing change changes changed changing update updates updated updating move moves
moved moving write writes wrote written writing read reads reading create creates created creating delete
deletes deleted deleting build builds built building fix fixes fixed fixing break breaks broke broken
check checks checked checking turn turns turned turning switch switched enable enabled enables disable
disabled disables happen happens happened fail fails failed failing pass passes passed passing return
returns returned send sends sent sending receive receives received load loads loaded loading save saves
saved saving show shows showed shown print printed store stores stored storing install installs installed
installing configure configured support supports supported handle handles handled handling allow allows
allowed allowing need needs needed require requires required requiring follow follows followed include
includes included including contain contains contained provide provides provided expect expects expected
seem seems seemed become becomes became look looks looked find finds found finding see sees saw seen mean
means meant reach reached cause causes caused affect affects affected report reports reported reporting
reduce reduces reduced increase increases increased improve improves improved grow grows grew raise raised
lower lowered count counts counted measure measured compare compared match matches matched replace replaced
decide decided choose chose chosen pick picked prefer preferred plan planned agree agreed explain explained
describe described understand understood learn learned teach taught wait waits waited stay stays stayed
leave leaves left bring brought hold holds held carry carried push pushed pull pulled share shared join
joined split drop dropped skip skipped miss missed lose lost win won hit apply applied define defines
defined deal dealt solve solved speed sped
thing things stuff way ways part parts piece bit lot lots kind sort case cases example examples fact
reason reasons detail details point points side end place places step steps
`);

/** How one greets or acknowledges: the first word of a text with nothing to remember ("Thanks, Sam!"). */
export const ACK_WORDS = set(`
ok okay k kk sure yes yep yeah yup aye no nope nah fine alright right great good nice cool perfect awesome
excellent wonderful amazing fantastic brilliant neat sweet lovely thanks thank thx ty cheers appreciated
appreciate welcome np problem worries hello hi hey hiya howdy greetings morning afternoon evening night bye
goodbye later soon noted understood got gotcha roger copy acknowledged agreed sounds looks seems works worked
go ahead proceed continue carry keep going please pls plz glad happy help helping helped done well
`);
