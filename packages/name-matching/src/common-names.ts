/**
 * Given and family names so common that sharing one says little about who is named (issue
 * "Names: recall kept, precision back"): a match resting on them carries little evidence, and a
 * query word that is one of them, two edits from a protected word, is read as that other name,
 * not as a disguise of the protected one ("Perez" is not "Lopez" misspelt).
 *
 * Where it comes from: written by hand (no data was copied) from the top entries of public
 * frequency rankings of many origins, as ASCII after this engine's normalisation: the US Census
 * surnames and Social Security given names, the UK's ONS baby names, Spain's INE and Latin
 * American civil registries, the Chinese Ministry of Public Security's surname ranking and common
 * pinyin given names, Japanese surname and given-name rankings, Korean and Vietnamese surnames,
 * common Indian, Pakistani, Arabic, Persian, Turkish, Nigerian (Yoruba, Igbo, Hausa), Ghanaian,
 * East African, Slavic, Greek, German, French, Italian, Dutch and Nordic names. Membership is all
 * that is read: it is not a ranking, and a name missing here may still be common (the index also
 * counts how many protected names hold each word: see NameIndex).
 */
const GIVEN = `
james john robert michael william david richard joseph thomas charles christopher daniel matthew
anthony mark donald steven stephen paul andrew joshua kenneth kevin brian george timothy ronald
jason edward jeffrey ryan jacob gary nicholas eric jonathan justin scott brandon benjamin samuel
gregory alexander patrick frank raymond jack dennis jerry tyler aaron henry adam peter nathan
zachary douglas harold kyle noah ethan jeremy christian walter keith austin roger terry sean
gerald carl dylan harry jordan jesse bryan lawrence arthur gabriel bruce logan billy joe albert
willie alan juan wayne elijah randy roy vincent ralph eugene russell bobby mason philip louis
liam oliver lucas owen luke jackson aiden caleb isaac hunter connor jake chris mike dave tom
bob jim joe tony alex sam ben dan matt nick steve rob will bill jon max leo tim ted ed andy
mary patricia jennifer
linda elizabeth barbara susan jessica sarah karen lisa nancy betty margaret sandra ashley
kimberly emily donna michelle carol amanda dorothy melissa deborah stephanie rebecca sharon laura
cynthia kathleen amy angela shirley anna brenda pamela emma nicole helen samantha katherine
catherine christine debra rachel carolyn janet ruth maria heather diane virginia julie joyce
victoria olivia kelly christina lauren joan evelyn judith megan andrea cheryl hannah jacqueline
martha gloria teresa ann anne sara madison frances kathryn janice jean abigail alice judy sophia
grace denise amber doris marilyn danielle beverly isabella theresa diana natalie brittany
charlotte marie kayla alexis lori ava mia chloe ella lily zoe jane kate lucy sophie liz
jenny sue beth meg annie jose luis
carlos jorge miguel pedro manuel francisco antonio javier diego alejandro fernando ricardo
eduardo roberto sergio rafael andres pablo raul enrique alberto mario hector ramon oscar ruben
julio cesar victor hugo marco marcos joao paulo tiago ana carmen rosa lucia isabel sofia elena
laura paula marta cristina pilar dolores mercedes teresa beatriz gabriela valentina camila
daniela fernanda adriana patricia veronica juana guadalupe jean pierre michel philippe alain
nicolas francois jacques marie nathalie isabelle sylvie camille julie celine hans peter klaus
jurgen wolfgang stefan thomas andreas michael uwe dieter ursula monika petra sabine giuseppe
giovanni francesco luca marco matteo alessandro andrea lorenzo giulia francesca chiara
mohammed mohamed muhammad mohammad ahmed ahmad ali omar hassan hussein hussain ibrahim yusuf
youssef mahmoud mustafa khalid karim abdullah abdul hamza bilal tariq said saleh fatima aisha
zainab maryam khadija amina layla leila noor nour salma yasmin hana sara huda mariam
imran irfan salman faisal asif kamran adnan zubair shahid nadeem tahir junaid zain rizwan
arif sajid farhan raj rahul amit anil sunil vijay ravi sanjay rajesh ramesh suresh mahesh ganesh naresh dinesh
mukesh rakesh ajay arjun rohit rohan vikram deepak manoj ashok arun kumar krishna priya pooja
neha anjali sunita anita kavita rekha lakshmi divya ritu shreya aarav vivaan aditya
wei fang min jing li lei jun yan ying hua ming jie tao yong qiang ping hui xin yu hong lin chao
bo gang hao yang jian feng chen xiaoming jianhua jianguo jianjun xiaohong haiyan guiying
xiuying yufang hiroshi takashi akira kenji satoshi makoto yuki yuko keiko haruto sota haruki
yuto ren hinata yui aoi kenta daiki kaito riku minjun seojun jiwoo jisoo jiho minji seoyeon
jiyeon eunji minh anh linh lan thao hung tuan duc huong mai van thi emeka chinedu chukwuemeka
obinna obiora ikenna chidi nnamdi uche ngozi chioma adaeze tunde tunji babatunde oluwaseun
olumide adebayo ayodele femi segun yemi bola funmi kemi musa usman abubakar aminu garba ibrahim
kwame kofi kwabena kwaku yaw ama abena akosua efua john peter joseph samuel grace mercy esther
danilo bojan dusan goran zoran dragan nenad vesna jelena milica snezana georgi dimitar
hristo todor stoyan yordan maria desislava xiaolong xiaoyan xiaoli xiaojun xiaowei jianping
zhiwei zhiqiang haiyang junjie yuting yuxuan zihan haoran minjae doyun hajun jihoon hyunwoo
jiwon sumin yejin seoyun gonzalo ignacio joaquin santiago emilio rodrigo alfonso arturo
armando ernesto felipe gustavo ivan jaime leonardo martin nicolas salvador tomas cristobal
rocio lorena alejandra claudia monica silvia susana yolanda julien antoine mathieu thibault
maxime guillaume sebastien vincent laurent olivier clement hugo arthur leo louise manon lea
ines amelie hugh serena tiffany crystal tracy wendy dawn holly april
ivan dmitri dmitry sergei sergey alexei alexey andrei mikhail nikolai vladimir olga tatiana
natalia irina svetlana elena ekaterina anastasia marina piotr pawel tomasz krzysztof marek
katarzyna agnieszka malgorzata jan pavel petr milan stefan nikola marko ana ivana mehmet mustafa
ahmet emre ali fatma ayse emine zeynep elif reza ali hossein mohammad zahra fatemeh maryam
`;

const FAMILY = `
smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez gonzalez
wilson anderson thomas taylor moore jackson martin lee perez thompson white harris sanchez clark
ramirez lewis robinson walker young allen king wright scott torres nguyen hill flores green adams
nelson baker hall rivera campbell mitchell carter roberts gomez phillips evans turner diaz parker
cruz edwards collins reyes stewart morris morales murphy cook rogers gutierrez ortiz morgan cooper
peterson bailey reed kelly howard ramos kim cox ward richardson watson brooks chavez wood james
bennett gray mendoza ruiz hughes price alvarez castillo sanders patel myers long ross foster
jimenez powell jenkins perry russell sullivan bell coleman butler henderson barnes gonzales fisher
vasquez simmons romero jordan patterson alexander hamilton graham reynolds griffin wallace moreno
west cole hayes bryant herrera gibson ellis tran medina aguilar stevens murray ford castro marshall
owens harrison fernandez mcdonald woods washington kennedy wells vargas henry chen freeman webb
tucker guzman burns crawford olson simpson porter hunter gordon mendez silva shaw snyder mason
dixon munoz hunt hicks holmes palmer wagner black robertson boyd rose stone salazar fox warren
mills meyer rice schmidt garza daniels ferguson nichols stephens soto weaver ryan gardner payne
grant dunn kelley spencer hawkins arnold pierce vazquez hansen peters santos hart bradley knight
elliott cunningham duncan armstrong hudson carroll lane riley andrews ray berry perkins hoffman
johnston matthews pena richards willis carpenter lawrence sandoval walsh byrne doyle kennedy
carey curry bishop watts barker lucas norris wheeler chapman brewer franklin hopkins burton newman fuller
lambert banks sutton holland welch morrow berg gill fletcher harvey hale cross wolfe barton
weeks goodwin summers reeves lowe boone bowman fowler bates steele garrett hines dean
schultz mann morton hardy baldwin swanson peck horton frost mcdaniel dawson wade greer
paul montgomery obrien francis quinn hodges stokes bush potter shelton rosales salinas
ibarra avila cardenas cortez estrada figueroa fuentes guerrero lara mejia miranda nunez ochoa
orozco padilla pacheco rios serrano valdez velasquez villarreal zamora espinoza campos
cabrera ayala acosta benitez maldonado marquez mora cervantes duran rangel robles solis
lynch obrien oconnor oneill quinn brennan molina navarro dominguez vega rojas contreras luna
delgado soto ramos vargas pereira oliveira costa almeida ferreira rodrigues alves lima gomes
ribeiro carvalho araujo souza martins sousa fernandes lopes martin bernard dubois thomas robert
richard petit durand leroy moreau simon laurent lefebvre michel david bertrand roux vincent
fournier girard bonnet mercier blanc guerin boyer garnier chevalier legrand gauthier
perrin morin masson marchand duval denis dumont lemaire noel dufour meunier brun giraud joly
riviere brunet gaillard barbier arnaud roche renard roy leroux colin vidal caron picard fabre muller mueller schmidt schneider fischer weber meyer wagner becker schulz
hoffmann koch richter klein wolf neumann schwarz zimmermann braun kruger hofmann rossi russo
ferrari esposito bianchi romano colombo ricci marino greco bruno gallo conti deluca costa
giordano rizzo lombardi moretti jansen dejong devries bakker visser smit meijer mulder dekker
johansson andersson karlsson nilsson eriksson larsson olsson persson hansen nielsen jensen
pedersen andersen larsen wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he
lin gao luo zheng liang xie song tang han feng deng cao peng zeng xiao tian dong pan yuan cai
jiang yu du ye cheng wei su lu ding ren shen yao zhong jin tan wong chan lam cheung ho ng leung
lau tsang sato suzuki takahashi tanaka watanabe ito yamamoto nakamura kobayashi kato yoshida
yamada sasaki yamaguchi matsumoto inoue kimura hayashi shimizu yamazaki mori abe ikeda hashimoto
yamashita ishikawa nakajima maeda fujita ogawa goto okada hasegawa murakami kondo ishii saito
sakamoto endo aoki fujii nishimura fukuda ota miura takeuchi nakano okamoto matsuda harada
nakagawa kim lee park choi jung jeong kang cho yoon jang lim han oh seo shin kwon hwang ahn song
nguyen tran le pham hoang huynh phan vu vo dang bui do ho ngo duong ly singh kumar sharma patel
gupta shah khan mehta verma reddy rao iyer nair joshi mishra pandey yadav chauhan jain agarwal
sinha das bose banerjee mukherjee chatterjee ghosh malhotra kapoor chopra bhatt desai thakur
ahmed ali hussain hussein hassan khan rahman siddiqui qureshi chaudhry malik butt mahmoud
mansour haddad khoury nasser saleh salem hamdan ibrahim abdullah aziz yousef yusuf omar farouk
karimi hosseini ahmadi rezaei mohammadi hashemi rahimi yilmaz kaya demir sahin celik yildiz
yildirim ozturk aydin ozdemir arslan dogan kilic okafor okeke okonkwo eze nwosu obi adeyemi
adebayo ogunleye okoro bello abubakar mohammed musa ibrahim mensah owusu boateng asante osei
mwangi otieno kamau ochieng wanjiru ivanov smirnov kuznetsov popov vasiliev petrov sokolov
mikhailov novikov fedorov morozov volkov alekseev lebedev semenov egorov pavlov kozlov stepanov
nikolaev orlov sobolev georgiev dimitrov nikolov stoyanov todorov ivanova petrova
benson barnett rosales friedman bender morel hassoun danilov nowak kowalski wisniewski wojcik kowalczyk kaminski lewandowski
zielinski novak horvat kovac jovanovic petrovic nikolic markovic djordjevic papadopoulos
georgiou nikolaou
`;

/** Common given and family names, normalised (lower-case ASCII, one word each). */
export const COMMON_NAMES: ReadonlySet<string> = new Set(
  `${GIVEN} ${FAMILY}`.split(/\s+/).filter((word) => word.length > 0),
);
