"""Trains the mix-back guard on make_mixes.py's mixes and outputs.ts's product outputs.
    python3 train.py MIXES_DIR EPOCHS OUT.pt"""
import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
torch.manual_seed(0); torch.set_num_threads(2)
data=[]
for f in sorted(glob.glob(f'{sys.argv[1]}/*.x.f32')):
    b=f[:-6]
    x=np.fromfile(b+'.x.f32',np.float32); y=np.fromfile(b+'.y.f32',np.float32); s=np.fromfile(b+'.s.f32',np.float32)
    X,Y,S=stft(x),stft(y),stft(s)
    A,B,C=terms(X,Y,S); data.append((feats(X,Y),A,B,C,(S.abs()**2).sum()))
print('files',len(data))
m=Guard(); opt=torch.optim.Adam(m.parameters(),1e-3)
for ep in range(int(sys.argv[2])):
    idx=torch.randperm(len(data)); tot=0
    for i in idx:
        f,A,B,C,e=data[i]
        w=m(f)
        err=(A-2*w*B+w*w*C).sum()
        base=A.sum()
        loss=10*torch.log10(err/e+1e-9)   # per-file SNR-like loss (dB)
        opt.zero_grad(); loss.backward(); opt.step(); tot+=float(10*torch.log10(base/e))-loss.item()
    print(ep,'mean train gain over product (dB, STFT SNR)',round(tot/len(data),3),flush=True)
torch.save(m.state_dict(),sys.argv[3])
